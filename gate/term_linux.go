package gate

import "syscall"

const ioctlReadTermios = syscall.TCGETS
