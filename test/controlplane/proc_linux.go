package controlplane

import (
	"os"
	"syscall"
)

// sysProcAttr puts each process in its own process group and has the kernel
// SIGKILL it if the test binary dies (e.g. on a go test -timeout panic, when
// no cleanup runs), so no etcd or kube-apiserver outlives its test.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// kill sends SIGKILL to the process (by its PID) and to its process group.
func kill(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	_ = syscall.Kill(p.Pid, syscall.SIGKILL)
}
