// Package webhook is winkube's validating and mutating admission server:
// the lint rule set applied to AdmissionReview v1 requests for Pods and the
// pod templates of Deployments, StatefulSets, DaemonSets, ReplicaSets, Jobs
// and CronJobs.
//
// The object in a request is decoded into a manifest.Object and checked by
// engine.Check with the configured rules, cluster profile and Kubernetes
// version, exactly as lint checks a file. /mutate turns the safe fixes of
// the findings into an RFC 6902 JSON patch (fix.Patch), checking again
// after each round so that a fix that pins a pod to Windows is followed by
// the Windows toleration. /validate, which the API server calls after every
// mutating webhook, denies error findings in the API server's own wording
// (`spec.securityContext.runAsUser: Forbidden: cannot be set for a windows
// pod (windows-forbidden-field)`) and returns warnings, one per finding,
// each under 120 characters.
//
// The mode of the config decides: enforce fixes and denies, mutate fixes
// and warns, warn only warns. Info findings are left to lint; kubectl would
// print them as warnings too. Some requests are allowed untouched whatever
// the mode: other operations and kinds, subresources, excluded namespaces,
// objects outside the objectSelector, objects being deleted, and by default
// pods whose controller (ReplicaSet, StatefulSet, DaemonSet, Job) had its
// template checked already — rechecking them would only repeat the
// template's warnings to a controller nobody reads and turn a denial at
// kubectl apply into FailedCreate events; bare pods and pods of other
// controllers are checked. An UPDATE ratchets like the API server's own
// validation: findings the old object already had are warned about but
// neither denied nor fixed, so a label change never fails or rolls out
// because of a problem that predates it; pod updates are never patched, as
// pod specs are mostly immutable.
//
// The config and the TLS certificate are files polled for changes (by
// content, so a rewrite within the same second is seen); a bad new version
// is logged and the last good one kept. A panic while checking a request is
// answered with HTTP 500 and a Status naming the request UID, so the API
// server applies the registration's failurePolicy exactly as it would for
// an unreachable webhook: Fail refuses the object, Ignore admits it.
package webhook
