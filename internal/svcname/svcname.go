package svcname

import "strings"

// Form is how a name names a Service.
type Form int

const (
	// Short is a Service name alone (backend): it resolves from a pod
	// of the Service's namespace, on Windows too.
	Short Form = iota
	// Partial is service.namespace[.svc[.cluster]]: Linux expands it
	// through its search list, Windows does not.
	Partial
	// Qualified is service.namespace.svc.<cluster domain>.
	Qualified
)

// Name is a Service name found in a string.
type Name struct {
	Form                     Form
	Name, Service, Namespace string
	FQDN                     string
	Start, End               int // of Name in the string
	// Always: the name is a Service name whatever the input holds
	// (service.namespace.svc, kubernetes.default); otherwise it is one
	// only if the input has the Service.
	Always bool
}

// PartialNames finds the host names in s that name a Service by a
// partially qualified name: service.namespace, service.namespace.svc and
// service.namespace.svc.<first label of the domain>.
func PartialNames(s, domain string) []Name {
	var out []Name
	for _, n := range Find(s, "", domain) {
		if n.Form == Partial {
			out = append(out, n)
		}
	}
	return out
}

// Find finds the Service names in s: partially qualified and qualified
// names, and short names (a lone DNS-1035 label, which the caller must
// match against the Services it knows) given the namespace they resolve
// in (pass "" to find none). Path segments (after a single "/") are not
// host names.
func Find(s, namespace, domain string) []Name {
	var out []Name
	first, _, _ := strings.Cut(domain, ".")
	for _, t := range hostTokens(s) {
		labels := strings.Split(t.text, ".")
		if !serviceLabel(labels[0]) || !Labels(labels[1:]) {
			continue
		}
		n := Name{Form: Partial, Name: t.text, Service: labels[0], Start: t.start, End: t.end}
		if len(labels) > 1 {
			n.Namespace = labels[1]
		}
		switch {
		case len(labels) == 1:
			if namespace == "" {
				continue
			}
			n.Form, n.Namespace = Short, namespace
		case len(labels) == 2:
			n.Always = t.text == "kubernetes.default"
		case len(labels) == 3 && labels[2] == "svc":
			n.Always = true
		case len(labels) == 4 && labels[2] == "svc" && labels[3] == first && first != domain:
			n.Always = true
		case labels[2] == "svc" && strings.Join(labels[3:], ".") == domain:
			n.Form, n.Always = Qualified, true
		default:
			continue
		}
		n.FQDN = n.Service + "." + n.Namespace + ".svc." + domain
		out = append(out, n)
	}
	return out
}

type hostToken struct {
	text       string
	start, end int
}

// hostTokens splits s into the runs of characters a DNS name is made of,
// dropping runs that are path segments (after a single "/") or that start
// with or hold an empty label.
func hostTokens(s string) []hostToken {
	var out []hostToken
	i := 0
	for i < len(s) {
		if !nameChar(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && nameChar(s[j]) {
			j++
		}
		text := strings.TrimRight(s[i:j], ".")
		pathSegment := i > 0 && s[i-1] == '/' && (i < 2 || s[i-2] != '/')
		if !pathSegment && text != "" && !strings.Contains(text, "..") && !strings.HasPrefix(text, ".") {
			out = append(out, hostToken{text: text, start: i, end: i + len(text)})
		}
		i = j
	}
	return out
}

func nameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c >= 'A' && c <= 'Z' || c == '_'
}

// serviceLabel: a Service name is a DNS-1035 label (it starts with a letter).
func serviceLabel(l string) bool {
	return l != "" && l[0] >= 'a' && l[0] <= 'z' && Labels([]string{l})
}

// Labels: lower-case DNS-1123 labels.
func Labels(ls []string) bool {
	for _, l := range ls {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for k := 0; k < len(l); k++ {
			c := l[k]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}
