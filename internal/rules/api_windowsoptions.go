package rules

import (
	"fmt"
	"strings"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/winsupport"
)

// Limits of validateWindowsSecurityContextOptions.
const (
	gmsaSpecMaxKiB       = 64
	runAsDomainMaxLength = 256 // a domain must be shorter than this
	runAsUserMaxLength   = 104
	netBIOSMaxLength     = 15
	// runAsUserForbiddenChars are the characters a Windows user name must not hold.
	runAsUserForbiddenChars = `"/\:;|=,+*?<>@[]`
	// netBIOSForbiddenChars are the characters a NetBIOS domain must not hold.
	netBIOSForbiddenChars = `\/:*?"<>|`
)

// windowsOptionsAt pairs a securityContext.windowsOptions with its path.
type windowsOptionsAt struct {
	opts *corev1.WindowsSecurityContextOptions
	path *field.Path
}

// windowsOptionsOf lists the pod's and every container's windowsOptions,
// in the API server's order.
func windowsOptionsOf(s *corev1.PodSpec, specPath *field.Path) []windowsOptionsAt {
	var out []windowsOptionsAt
	if s.SecurityContext != nil && s.SecurityContext.WindowsOptions != nil {
		out = append(out, windowsOptionsAt{s.SecurityContext.WindowsOptions, specPath.Child("securityContext", "windowsOptions")})
	}
	winsupport.VisitContainers(s, specPath, func(c *corev1.Container, p *field.Path) {
		if c.SecurityContext != nil && c.SecurityContext.WindowsOptions != nil {
			out = append(out, windowsOptionsAt{c.SecurityContext.WindowsOptions, p.Child("securityContext", "windowsOptions")})
		}
	})
	return out
}

// gmsaErrors checks the gMSA fields as the API server does.
func gmsaErrors(o *corev1.WindowsSecurityContextOptions, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if o.GMSACredentialSpecName != nil {
		for _, msg := range validation.IsDNS1123Subdomain(*o.GMSACredentialSpecName) {
			errs = append(errs, field.Invalid(path.Child("gmsaCredentialSpecName"), o.GMSACredentialSpecName, msg))
		}
	}
	if o.GMSACredentialSpec != nil {
		switch n := len(*o.GMSACredentialSpec); {
		case n == 0:
			errs = append(errs, field.Invalid(path.Child("gmsaCredentialSpec"), o.GMSACredentialSpec, "gmsaCredentialSpec cannot be an empty string"))
		case n > gmsaSpecMaxKiB*1024:
			errs = append(errs, field.Invalid(path.Child("gmsaCredentialSpec"), o.GMSACredentialSpec, fmt.Sprintf("gmsaCredentialSpec size must be under %d KiB", gmsaSpecMaxKiB)))
		}
	}
	return errs
}

// userNameErrors checks runAsUserName ("USER" or "DOMAIN\USER") as the API
// server does: the first three problems stop the check, the rest are all
// reported.
func userNameErrors(o *corev1.WindowsSecurityContextOptions, path *field.Path) field.ErrorList {
	if o.RunAsUserName == nil {
		return nil
	}
	name, p := *o.RunAsUserName, path.Child("runAsUserName")
	invalid := func(msg string) *field.Error { return field.Invalid(p, o.RunAsUserName, msg) }
	parts := strings.Split(name, `\`)
	switch {
	case name == "":
		return field.ErrorList{invalid("runAsUserName cannot be an empty string")}
	case hasControlChar(name):
		return field.ErrorList{invalid("runAsUserName cannot contain control characters")}
	case len(parts) > 2:
		return field.ErrorList{invalid("runAsUserName cannot contain more than one backslash")}
	}
	domain, user := "", parts[0]
	if len(parts) == 2 {
		domain, user = parts[0], parts[1]
	}
	var errs field.ErrorList
	if len(domain) >= runAsDomainMaxLength {
		errs = append(errs, invalid(fmt.Sprintf("runAsUserName's Domain length must be under %d characters", runAsDomainMaxLength)))
	}
	if len(parts) == 2 && !isNetBIOSDomainName(domain) && !isDNSDomainName(domain) {
		errs = append(errs, invalid("runAsUserName's Domain doesn't match the NetBios nor the DNS format"))
	}
	switch {
	case user == "":
		errs = append(errs, invalid("runAsUserName's User cannot be empty"))
	case len(user) > runAsUserMaxLength:
		errs = append(errs, invalid(fmt.Sprintf("runAsUserName's User length must not be longer than %d characters", runAsUserMaxLength)))
	}
	if user != "" && strings.Trim(user, ". ") == "" {
		errs = append(errs, invalid("runAsUserName's User cannot contain only periods or spaces"))
	}
	if strings.ContainsAny(user, runAsUserForbiddenChars) {
		errs = append(errs, invalid("runAsUserName's User cannot contain the following characters: "+runAsUserForbiddenChars))
	}
	return errs
}

// hasControlChar reports an ASCII control character, as [[:cntrl:]] does.
func hasControlChar(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// isNetBIOSDomainName: 1 to 15 characters, none of \/:*?"<>| and no leading dot.
func isNetBIOSDomainName(d string) bool {
	n := utf8.RuneCountInString(d)
	return n >= 1 && n <= netBIOSMaxLength && d[0] != '.' && !strings.ContainsAny(d, netBIOSForbiddenChars)
}

// isDNSDomainName: dot-separated labels of letters, digits and inner hyphens,
// each at most 63 characters.
func isDNSDomainName(d string) bool {
	for _, label := range strings.Split(d, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}
