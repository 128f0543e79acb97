package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// fileIdentity names one state of a file: any change to its content or
// mode, or a new file in its place, changes it.
func fileIdentity(fi fs.FileInfo) (string, error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", errors.New("no stat")
	}
	return fmt.Sprintf("%d:%d %d %o %d.%09d %d.%09d", st.Dev, st.Ino, st.Size, st.Mode,
		st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec), nil
}

// kernelID returns the kernel's release and version.
func kernelID() (string, error) {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "", err
	}
	return unix.ByteSliceToString(u.Release[:]) + " " + unix.ByteSliceToString(u.Version[:]), nil
}
