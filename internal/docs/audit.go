package docs

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/winkube/winkube/internal/catalogue"
	"github.com/winkube/winkube/internal/doctor"
	"github.com/winkube/winkube/internal/rule"
)

// Audit writes docs/audit.md: what audit and doctor read, their report
// formats, the audit's own rules and doctor's causes, from the code.
func Audit(w io.Writer) error {
	bw := bufio.NewWriter(w)
	header(bw, "winkube audit and winkube doctor")
	bw.WriteString(auditIntro)
	fmt.Fprintln(bw, "## Audit rules")
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "Besides every [lint rule](rules.md), applied to the live workloads, the audit has these rules.")
	fmt.Fprintln(bw)
	for _, r := range catalogue.Default().Audit {
		writeAuditRule(bw, r)
	}
	fmt.Fprintln(bw, "## Doctor causes")
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "Tried in this order; a pod gets one diagnosis per matching cause, most likely first. Messages are matched case-insensitively anywhere in the event or status text, so the wrappers of the kubelet, the CRI, containerd, hcsshim and Docker do not matter.")
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "The node causes (runtime-endpoint-unreachable to source-vip-problem) are matched on the lines of the node log query instead, with `--node-reads`, whether or not a pod is unhealthy: their diagnoses name a node (`node`, `state: node`) and no pod (`pod` is empty), quote each line with its timestamp (`source: log`, `reason` is the service), and count in `summary.nodesWithCauses`; doctor exits 1 when a node has one.")
	fmt.Fprintln(bw)
	for _, c := range doctor.Causes() {
		writeCause(bw, c)
	}
	return bw.Flush()
}

func writeAuditRule(w *bufio.Writer, r *rule.Rule) {
	fmt.Fprintf(w, "### %s\n\n%s. Severity %s, area %s.\n\n", r.ID, md(r.Title), r.Severity, r.Category)
	fmt.Fprintf(w, "- **What:** %s\n- **Why:** %s\n- **Fix:** %s\n- **Sources:** %s\n\n", md(r.Doc.What), md(r.Doc.Why), md(r.Doc.Fix), md(strings.Join(r.Doc.Sources, "; ")))
}

func writeCause(w *bufio.Writer, c *doctor.Cause) {
	fmt.Fprintf(w, "### %s\n\n%s.\n\n%s\n\n", c.ID, md(c.Title), md(c.Explain))
	if len(c.Patterns) > 0 {
		fmt.Fprintln(w, "| message | from | upstream |\n|---|---|---|")
		for _, p := range c.Patterns {
			fmt.Fprintf(w, "| `%s` | %s | %s |\n", strings.ReplaceAll(p.Text, "|", `\|`), cell(p.Service), cell(p.Source))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "Steps:")
	fmt.Fprintln(w)
	for i, s := range c.Steps {
		fmt.Fprintf(w, "%d. %s\n", i+1, md(s))
	}
	fmt.Fprintln(w, "\nNext commands:\n\n```")
	for _, cmd := range c.Commands {
		if cmd.Where != "" {
			fmt.Fprintf(w, "# PowerShell, %s\n", cmd.Where)
		}
		fmt.Fprintln(w, cmd.Line)
	}
	fmt.Fprintf(w, "```\n\nSources: %s\n\n", md(strings.Join(c.Sources, "; ")))
}

const auditIntro = "`winkube audit` and `winkube doctor` read a live cluster with the same engine\n" +
	"lint uses. They read Nodes, Namespaces, Pods, Deployments, StatefulSets,\n" +
	"DaemonSets, ReplicaSets, ReplicationControllers, Jobs, CronJobs, RuntimeClasses,\n" +
	"Services and Events, and the server version; never Secrets. Lists are paginated\n" +
	"(500 objects a page), asked for in protobuf and run in parallel under\n" +
	"`--qps 100 --burst 200` (client-go's defaults are 5 and 10). Events are read\n" +
	"through `events.k8s.io/v1`, or `core/v1` when that API is not allowed: both serve\n" +
	"the same stored events, whichever API a kubelet or scheduler wrote them with.\n" +
	"Only doctor reads events (the audit judges objects), and it leaves the routine\n" +
	"ones out server-side (`reason!=Started,reason!=Created,reason!=Scheduled`).\n" +
	"A kind the credentials may not list becomes a `permission-denied` finding\n" +
	"naming the permission to grant, and the run goes on.\n\n" +
	"Connection flags follow kubectl: `--kubeconfig`, `--context`, `-n`, `-A`; in a\n" +
	"pod the service account is used. The audit reads every namespace unless `-n`\n" +
	"is given; doctor reads the context's namespace unless `-A` is given. Installed\n" +
	"as `kubectl-winkube` the binary is a kubectl plugin: `kubectl winkube audit`.\n\n" +
	"Permissions: [deploy/audit-rbac.yaml](../deploy/audit-rbac.yaml) holds the\n" +
	"ClusterRole `winkube-audit` (get, list and watch on exactly these kinds), a\n" +
	"ServiceAccount and its binding; [deploy/audit-cronjob.yaml](../deploy/audit-cronjob.yaml)\n" +
	"runs `winkube audit -o json --node-reads=direct` every six hours on a Linux node.\n\n" +
	"## Reading the Windows nodes' kubelets\n\n" +
	"With `--node-reads=direct` or `--node-reads=proxy` (default `off`) audit and\n" +
	"doctor also read each Windows node's kubelet API, with no agent on the node:\n" +
	"audit reads `/configz` (the kubelet's effective KubeletConfiguration, checked with\n" +
	"the rules, IDs and messages of `winkube nodeconfig validate` and compared within\n" +
	"the node's pool: `windows-node-config-drift`) and `/stats/summary` (memory and\n" +
	"disk pressure); both read the node log query\n" +
	"`/logs/?query=SERVICE&sinceTime=...&tailLines=...` for kubelet, containerd,\n" +
	"kube-proxy, flanneld, CalicoNode, CalicoFelix and antrea-agent: doctor names node\n" +
	"causes from the log lines alone, and audit reports the same lines as the\n" +
	"`node-log-*` findings on the Node (one rule per doctor node cause, matched with\n" +
	"the same strings, internal/live/nodelog), each quoting the newest line with its\n" +
	"timestamp. When a config turns every `node-log-*` rule off, audit asks for no\n" +
	"log. A service the node does not run (\"log not found for CalicoNode\") is no\n" +
	"failure; a log query refused for one service is not asked for the others.\n" +
	"On Windows the\n" +
	"kubelet answers a log query from the Event Log (Get-WinEvent) or, for a service\n" +
	"that logs to `C:\\var\\log\\SERVICE.log`, from the file, and then refuses\n" +
	"`sinceTime` and `tailLines`; winkube then asks again without them and applies\n" +
	"them itself (kubernetes/kubernetes v1.36.3 pkg/kubelet/kubelet_server_journal.go).\n" +
	"The node log query needs `enableSystemLogHandler` and `enableSystemLogQuery` in the\n" +
	"kubelet's configuration (NodeLogQuery is GA and locked on in 1.36).\n\n" +
	"At most 16 kubelet requests are in flight at once, each bounded to 10 seconds and\n" +
	"8 MiB (16 MiB for a log, of which only the lines a cause can match are kept).\n" +
	"An endpoint that cannot be read (a 403 names the permission, a 404 or 405 the\n" +
	"setting, a timeout, an answer too large, malformed JSON) becomes a\n" +
	"`kubelet-unreadable` finding for that node, and the run goes on. The command\n" +
	"says on stderr (and audit in its notes) which path it used.\n\n" +
	"- **direct** (in the cluster, the CronJob): each kubelet on its own address and\n" +
	"  port (`status.addresses`, `status.daemonEndpoints.kubeletEndpoint.port`) with the\n" +
	"  caller's credentials; the kubelet authorizes each path with a\n" +
	"  SubjectAccessReview on one subresource: `/configz` is `nodes/configz`,\n" +
	"  `/stats/` is `nodes/stats`, `/logs/` is `nodes/log` (fine-grained kubelet\n" +
	"  authorization, KubeletFineGrainedAuthz, GA in 1.36; kubernetes/kubernetes\n" +
	"  v1.36.3 pkg/kubelet/server/auth.go). `winkube-audit` grants `get` on those\n" +
	"  three and nothing else of a node. The kubelets' serving certificates are\n" +
	"  checked against the cluster's CA or `--kubelet-ca`; a kubelet with a\n" +
	"  self-signed certificate is reported as unreadable, never trusted blindly.\n" +
	"- **proxy** (from a workstation): through the API server's node proxy,\n" +
	"  `/api/v1/nodes/NAME/proxy/...`, which needs `get` on `nodes/proxy`.\n\n" +
	"> **Warning:** `nodes/proxy` is close to node admin: it reaches every path of\n" +
	"> every kubelet's API (any pod's logs; with `create`, exec into any container),\n" +
	"> bypassing admission. It is never in `winkube-audit`. It is in a separate\n" +
	"> ClusterRole, [deploy/audit-node-proxy-rbac.yaml](../deploy/audit-node-proxy-rbac.yaml),\n" +
	"> that nothing binds: bind it to a person for an investigation and remove the\n" +
	"> binding afterwards. Prefer `--node-reads=direct` from inside the cluster.\n\n" +
	"## winkube audit\n\n" +
	"One report over the cluster: the audit rules below over the nodes, every lint\n" +
	"rule over the live workloads (a pod owned by a ReplicaSet owned by a Deployment\n" +
	"is checked once, as the Deployment; RuntimeClasses come from the cluster), and\n" +
	"the simulation on the live nodes with the running pods already placed: pods\n" +
	"still waiting for a node and why (`workload-pending`), pods bound to a node\n" +
	"whose kubelet cannot start them (`workload-start-failure`), and how many more\n" +
	"replicas of each Windows workload fit (headroom, as `simulate --max`).\n\n" +
	"Findings have lint's shape, but a live object has no file: its location is\n" +
	"`Kind/namespace/name` and the field path (`Node/win-1:status.nodeInfo.kernelVersion`),\n" +
	"and in SARIF a logical location. Exit status as lint: 0 clean, 1 a finding at or\n" +
	"above `--fail-on`, 2 usage error or failure.\n\n" +
	"Formats (`-o` on stdout, `--output-file FORMAT=PATH` repeatable for files): `text`, `json`,\n" +
	"`sarif`, `html` (self-contained). The JSON report:\n\n" +
	"```json\n" +
	"{\n" +
	"  \"apiVersion\": \"winkube.io/v1alpha1\",\n" +
	"  \"kind\": \"AuditReport\",\n" +
	"  \"tool\": \"dev\",\n" +
	"  \"serverVersion\": \"v1.36.3\",\n" +
	"  \"kubernetesVersion\": \"1.36\",\n" +
	"  \"summary\": {\"nodes\": 12, \"pods\": 26, \"objects\": 41, \"errors\": 38, \"warnings\": 53, \"infos\": 0, \"suppressed\": 0},\n" +
	"  \"areas\": [{\"name\": \"nodes\", \"status\": \"not-ready\", \"errors\": 7, \"warnings\": 2, \"infos\": 0}],\n" +
	"  \"findings\": [{\"rule\": \"windows-node-not-ready\", \"severity\": \"error\", \"message\": \"...\", \"fieldPath\": \"status.conditions[Ready]\",\n" +
	"                \"file\": \"\", \"line\": 0, \"column\": 0, \"object\": {\"apiVersion\": \"v1\", \"kind\": \"Node\", \"namespace\": \"\", \"name\": \"win-3\"}, \"suppressed\": false}],\n" +
	"  \"simulation\": {\"headroom\": [{\"workload\": \"Deployment/shop/iis\", \"moreFit\": 12}], \"pools\": [\"...as simulate\"]}\n" +
	"}\n" +
	"```\n\n" +
	"Areas (readiness per area: `ready`, `at-risk` with warnings, `not-ready` with\n" +
	"errors, `unknown` when a kind the area reads could not be listed, named in the\n" +
	"area's `unread`): `nodes` (node rules, permissions), `placement`, `images`,\n" +
	"`security` (identity, Linux-only fields, API rejections, services), `capacity`\n" +
	"(resources, reserve, node counts).\n\n" +
	"A run that could not list a kind it reads (a 403 or 401) writes its report and\n" +
	"then exits 2 with `error: could not list ...`; doctor does the same. Every\n" +
	"request to the API server times out after `--request-timeout` (default 1m0s;\n" +
	"kubectl's semantics: seconds or a duration, 0 waits forever). A list that\n" +
	"repeats a continue token, or runs past 10,000 pages or 300,000 objects of one\n" +
	"kind, stops with an error naming the kind.\n\n" +
	"## winkube doctor\n\n" +
	"`winkube doctor [POD] [-n NS | -A]` looks at each unhealthy pod (Pending,\n" +
	"ContainerCreating past `--creating-after` (5m), a container waiting in\n" +
	"ErrImagePull, ImagePullBackOff, CreateContainerError, RunContainerError or\n" +
	"CrashLoopBackOff, Failed, Evicted, restarting, not Ready) and joins its status,\n" +
	"its events by the pod's UID (never by name: an earlier pod of the same name is\n" +
	"not evidence), its node's facts, its owner, winkube's lint findings on the owner\n" +
	"and the simulation's verdict on the pod. Exit 0 when no pod is unhealthy, 1\n" +
	"when one is. The JSON report:\n\n" +
	"```json\n" +
	"{\n" +
	"  \"apiVersion\": \"winkube.io/v1alpha1\",\n" +
	"  \"kind\": \"DoctorReport\",\n" +
	"  \"serverVersion\": \"v1.36.3\",\n" +
	"  \"summary\": {\"checked\": 27, \"unhealthy\": 23},\n" +
	"  \"diagnoses\": [{\n" +
	"    \"pod\": {\"namespace\": \"shop\", \"name\": \"web-0\", \"uid\": \"...\"},\n" +
	"    \"node\": \"win-1\", \"nodeOS\": \"windows\", \"nodeBuild\": \"10.0.20348\",\n" +
	"    \"owner\": \"StatefulSet/shop/web\", \"state\": \"ContainerCreating\",\n" +
	"    \"cause\": \"pause-image-build-mismatch\", \"title\": \"...\", \"summary\": \"...\", \"likelihood\": 95,\n" +
	"    \"evidence\": [{\"source\": \"event\", \"reason\": \"FailedCreatePodSandBox\", \"message\": \"...\", \"count\": 14, \"time\": \"...\"}],\n" +
	"    \"explanation\": \"...\", \"steps\": [\"...\"],\n" +
	"    \"commands\": [{\"shell\": \"powershell\", \"where\": \"on the node\", \"command\": \"...\"}],\n" +
	"    \"sources\": [\"...\"]\n" +
	"  }]\n" +
	"}\n" +
	"```\n\n" +
	"Evidence sources: `event`, `status` (pod reason, PodScheduled condition,\n" +
	"container states and exit codes), `node`, `lint`, `simulate`.\n\n"
