//go:build !linux

package controlplane

import (
	"os"
	"syscall"
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

func kill(p *os.Process) { _ = p.Kill() }
