package loadgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// outcome is what a request should get back.
type outcome int

const (
	allowed outcome = iota // allowed, no patch
	warned                 // allowed with warnings
	patched                // allowed with a patch
	denied
)

func (o outcome) String() string {
	return [...]string{"allowed", "warned", "patched", "denied"}[o]
}

// template is one kind of request of the mix: a review whose UID is cut
// out, so that each request gets its own without re-encoding.
type template struct {
	name          string
	endpoint      string
	weight        int
	want          outcome
	before, after []byte // the review around its UID
}

func (t *template) body(uid string) []byte {
	b := make([]byte, 0, len(t.before)+len(uid)+len(t.after))
	return append(append(append(b, t.before...), uid...), t.after...)
}

const uidMark = "UID-MARK"

const (
	winImage  = `"image": "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}`
	winPinned = `"os": {"name": "windows"}, "nodeSelector": {"kubernetes.io/os": "windows"}, "tolerations": [{"key": "os", "operator": "Equal", "value": "windows", "effect": "NoSchedule"}],`
	linPinned = `"os": {"name": "linux"}, "nodeSelector": {"kubernetes.io/os": "linux"},`
	linImage  = `"image": "registry.example.com/shop/api:1.8.2", "ports": [{"containerPort": 8080}], "env": [{"name": "LOG_LEVEL", "value": "info"}]`
)

// mix is the request mix: what a hybrid cluster's API server sends, each
// object once to /mutate and once to /validate, mostly Linux, mostly
// well-formed.
func mix() ([]*template, error) {
	pod := func(spec string) string {
		return `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-5d8f7", "namespace": "shop", "labels": {"app": "web"}}, "spec": {` + spec + `}}`
	}
	deploy := func(spec string) string {
		return `{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
			"spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}}, "spec": {` + spec + `}}}}`
	}
	type entry struct {
		name, kind, obj string
		weight          int
		mutate, valid   outcome
	}
	entries := []entry{
		{"linux pod, pinned", "Pod", pod(linPinned + `"containers": [{"name": "api", ` + linImage + `}]`), 30, allowed, allowed},
		{"linux pod, unpinned", "Pod", pod(`"containers": [{"name": "web", "image": "nginx:1.27"}]`), 10, patched, warned},
		{"pod of unknown OS, unpinned", "Pod", pod(`"containers": [{"name": "api", ` + linImage + `}]`), 5, allowed, warned},
		{"windows pod, pinned", "Pod", pod(winPinned + `"containers": [{"name": "iis", ` + winImage + `}]`), 15, allowed, allowed},
		{"windows pod, unpinned", "Pod", pod(`"containers": [{"name": "iis", ` + winImage + `}]`), 10, patched, denied},
		{"windows pod, runAsUser", "Pod", pod(winPinned + `"securityContext": {"runAsUser": 1000}, "containers": [{"name": "iis", ` + winImage + `}]`), 5, allowed, denied},
		{"linux deployment, pinned", "Deployment", deploy(linPinned + `"containers": [{"name": "api", ` + linImage + `}]`), 15, allowed, allowed},
		{"windows deployment, pinned", "Deployment", deploy(winPinned + `"containers": [{"name": "iis", ` + winImage + `}]`), 10, allowed, allowed},
		{"windows deployment, unpinned", "Deployment", deploy(`"containers": [{"name": "iis", ` + winImage + `}]`), 5, patched, denied},
	}
	var out []*template
	for _, e := range entries {
		for _, ep := range []struct {
			name string
			want outcome
		}{{"mutate", e.mutate}, {"validate", e.valid}} {
			t, err := newTemplate(e.name, e.kind, ep.name, e.obj, e.weight, ep.want)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
	}
	return out, nil
}

func newTemplate(name, kind, endpoint, obj string, weight int, want outcome) (*template, error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(obj)); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	group, version := "", "v1"
	if kind == "Deployment" {
		group = "apps"
	}
	req := &admissionv1.AdmissionRequest{
		UID:       uidMark,
		Kind:      metav1.GroupVersionKind{Group: group, Version: version, Kind: kind},
		Resource:  metav1.GroupVersionResource{Group: group, Version: version, Resource: map[string]string{"Pod": "pods", "Deployment": "deployments"}[kind]},
		Name:      map[string]string{"Pod": "web-5d8f7", "Deployment": "web"}[kind],
		Namespace: "shop",
		Operation: admissionv1.Create,
	}
	req.Object.Raw = compact.Bytes()
	b, err := json.Marshal(&admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Request: req})
	if err != nil {
		return nil, err
	}
	before, after, ok := bytes.Cut(b, []byte(uidMark))
	if !ok {
		return nil, fmt.Errorf("%s: no UID in the review", name)
	}
	return &template{name: name + " /" + endpoint, endpoint: endpoint, weight: weight, want: want, before: before, after: after}, nil
}

// answer is the part of an AdmissionReview response that check reads;
// decoding only that keeps the load generator's share of the CPU small.
type answer struct {
	Response *struct {
		UID      string   `json:"uid"`
		Allowed  bool     `json:"allowed"`
		Patch    string   `json:"patch"` // base64, left encoded
		Warnings []string `json:"warnings"`
	} `json:"response"`
}

// check reads a response and compares it with what the template wants.
func (t *template) check(uid string, body []byte) error {
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		return fmt.Errorf("%s: decoding the response: %w", t.name, err)
	}
	r := a.Response
	if r == nil || r.UID != uid {
		got := "(none)"
		if r != nil {
			got = strconv.Quote(r.UID)
		}
		return fmt.Errorf("%s: response for uid %s, want %s", t.name, got, uid)
	}
	got := allowed
	switch {
	case !r.Allowed:
		got = denied
	case r.Patch != "":
		got = patched
	case len(r.Warnings) > 0:
		got = warned
	}
	if got != t.want {
		return fmt.Errorf("%s: %s, want %s", t.name, got, t.want)
	}
	return nil
}

// picker deals the templates in proportion to their weights, in a fixed
// interleaved order.
type picker struct{ seq []*template }

func newPicker(ts []*template) *picker {
	p := &picker{}
	for round := 0; ; round++ {
		added := false
		for _, t := range ts {
			if round < t.weight {
				p.seq = append(p.seq, t)
				added = true
			}
		}
		if !added {
			return p
		}
	}
}

func (p *picker) pick(i int) *template { return p.seq[i%len(p.seq)] }
