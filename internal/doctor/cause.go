package doctor

import (
	"github.com/winkube/winkube/internal/live/nodelog"
	"github.com/winkube/winkube/internal/rule"
)

// Cause is one reason a pod can be stuck, documented like a rule.
type Cause struct {
	ID      string // kebab-case, stable forever
	Title   string
	Explain string // what happened and why, on Windows in particular
	// Steps are the runbook steps, from the seeds where they give them.
	Steps []string
	// Commands are what to run next. {pod}, {ns}, {node}, {image} and
	// {container} are replaced by the pod's values.
	Commands []Command
	// Patterns are the messages that show the cause, for each runtime
	// that phrases it differently.
	Patterns []Pattern
	Sources  []string // seeds and upstream files the cause rests on
	// signature finds a node cause on a kubelet's logs; nil for the
	// causes found on pods.
	signature *nodelog.Signature
}

// Command is one command to run next.
type Command struct {
	Shell string `json:"shell"` // kubectl or powershell
	// Where says where to run it: "" for a workstation, "on the node" for
	// PowerShell on the Windows node.
	Where string `json:"where,omitempty"`
	Line  string `json:"command"`
}

func kubectl(line string) Command { return Command{Shell: "kubectl", Line: line} }

func onNode(line string) Command {
	return Command{Shell: "powershell", Where: "on the node", Line: line}
}

// Causes returns the catalogue, in the order causes are tried.
func Causes() []*Cause {
	return []*Cause{
		UntoleratedTaint, NoNodeMatchesSelector, InsufficientResources,
		PodOSMismatch, PodLevelResourcesUnsupported,
		PauseImageBuildMismatch, ImageBuildMismatch, LinuxImageOnWindows, WindowsImageOnLinux,
		CNINetworkFailure, HostProcessIdentity, CommandNotFound, DLLNotFound,
		SlowStartKilledByLiveness, SlowImagePull, OOMKilled, Evicted, DNSResolutionFailure, ServiceUnreachable, ReadinessProbeFailing,
		RuntimeEndpointUnreachable, SandboxNetworkSetupFailing, HNSLoadBalancerFailing, HNSNetworkMissing, FlannelWaitingForNetwork, SourceVIPProblem,
		Unknown,
	}
}

// Enabled returns the causes the settings leave on, in the order causes
// are tried; nil settings leave every cause on.
func Enabled(set *rule.Settings) []*Cause {
	var out []*Cause
	for _, c := range Causes() {
		if set.Apply(c.Rule()) != nil {
			out = append(out, c)
		}
	}
	return out
}
