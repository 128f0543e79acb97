//go:build linux && (amd64 || arm64)

package sandbox

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// Denied lists the system calls a command under bwrap is refused, with
// EPERM, by the seccomp filter bwrap installs just before it starts the
// command (--seccomp): what reads or changes other processes (ptrace,
// process_vm_*), mounts (a nested user namespace would otherwise let a
// command mount), the kernel's keyrings (not confined by the sandbox's
// namespaces), and what widens the kernel's attack surface for no
// command's good (kexec, modules, bpf, perf_event_open, userfaultfd,
// and io_uring, whose rings carry out reads, writes, opens and connects
// that no seccomp filter sees, and which has been a steady source of
// kernel bugs). Most already fail without capabilities; the filter refuses them before
// the kernel's code for them runs.
var Denied = []string{
	"ptrace", "process_vm_readv", "process_vm_writev",
	"mount", "umount2", "pivot_root", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
	"keyctl", "add_key", "request_key",
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
	"bpf", "perf_event_open", "userfaultfd",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
}

// denied holds Denied's numbers on this architecture, in Denied's order.
var denied = []uint32{
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_OPEN_TREE, unix.SYS_MOVE_MOUNT,
	unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT, unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR,
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD, unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
}

// The offsets of struct seccomp_data's fields the filter reads.
const (
	seccompNr   = 0
	seccompArch = 4
)

// x32Bit marks the system calls of x86-64's x32 ABI, which come with
// x86-64's audit arch and numbers of their own.
const x32Bit = 0x40000000

// seccompFilter returns the filter as bwrap reads it from --seccomp FD:
// a classic BPF program, struct sock_filter after struct sock_filter in
// the machine's byte order. A call from another architecture's ABI (a
// 32-bit program on a 64-bit kernel, x32) is refused whatever it is: its
// numbers are not those above, so that a denied call could not pass
// under another number.
func seccompFilter() []byte {
	deny := unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)}
	allow := unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW}
	// The jumps are relative; the program ends with allow, then deny.
	n := 4 + len(denied)
	toDeny := func(i int) uint8 { return uint8(n + 1 - i - 1) }
	prog := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: seccompArch},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: auditArch, Jf: toDeny(1)},
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: seccompNr},
		{Code: unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, K: x32Bit, Jt: toDeny(3)},
	}
	for i, nr := range denied {
		prog = append(prog, unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: nr, Jt: toDeny(4 + i)})
	}
	prog = append(prog, allow, deny)
	out := make([]byte, 0, 8*len(prog))
	for _, f := range prog {
		out = binary.NativeEndian.AppendUint16(out, f.Code)
		out = append(out, f.Jt, f.Jf)
		out = binary.NativeEndian.AppendUint32(out, f.K)
	}
	return out
}
