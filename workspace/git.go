package workspace

import "strings"

// IsGitName reports whether a path component names a .git folder or
// file, however it is spelt: in any case, and with what some file systems
// ignore (trailing dots and spaces on NTFS, invisible characters on
// HFS+), or as NTFS's short name GIT~1. git itself refuses these
// spellings for the same reason: git runs what is written there (hooks,
// core.fsmonitor, core.hooksPath) at its next command.
func IsGitName(c string) bool {
	c = strings.Map(func(r rune) rune {
		if ignorable(r) {
			return -1
		}
		return r
	}, c)
	c = strings.TrimRight(c, ". ")
	return strings.EqualFold(c, ".git") || strings.EqualFold(c, "git~1")
}

// ignorable lists the code points HFS+ ignores in names.
func ignorable(r rune) bool {
	switch {
	case r == 0x200c, r == 0x200d, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}
