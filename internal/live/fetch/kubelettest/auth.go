package kubelettest

import (
	"fmt"
	"net/http"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// SARAuthorizer authenticates and authorizes as a kubelet with
// authentication.webhook and authorization mode Webhook: a verified
// client certificate names the user (CN) and groups (O); a bearer token
// is reviewed with a TokenReview; then a SubjectAccessReview is asked for
// each subresource of the node, the first allowed one wins. Anonymous
// requests are refused.
func SARAuthorizer(cs kubernetes.Interface, node string) Authorizer {
	return func(r *http.Request, subs []string) (int, string) {
		user, groups, uid, ok := authenticate(r, cs)
		if !ok {
			return http.StatusUnauthorized, "Unauthorized"
		}
		for _, sub := range subs {
			sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user, Groups: groups, UID: uid,
				ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "get", Version: "v1", Resource: "nodes", Subresource: sub, Name: node}}}
			got, err := cs.AuthorizationV1().SubjectAccessReviews().Create(r.Context(), sar, metav1.CreateOptions{})
			if err != nil {
				return http.StatusInternalServerError, fmt.Sprintf("Authorization error (user=%s, verb=get, resource=nodes, subresource=%s)", user, sub)
			}
			if got.Status.Allowed {
				return 0, ""
			}
		}
		// The kubelet's own message (pkg/kubelet/server/server.go).
		return http.StatusForbidden, fmt.Sprintf("Forbidden (user=%s, verb=%s, resource=%s, subresource(s)=%v)\n", user, "get", "nodes", subs)
	}
}

func authenticate(r *http.Request, cs kubernetes.Interface) (user string, groups []string, uid string, ok bool) {
	if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 {
		c := r.TLS.PeerCertificates[0]
		return c.Subject.CommonName, c.Subject.Organization, "", true
	}
	token, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !found || token == "" {
		return "", nil, "", false
	}
	tr, err := cs.AuthenticationV1().TokenReviews().Create(r.Context(), &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	if err != nil || !tr.Status.Authenticated {
		return "", nil, "", false
	}
	return tr.Status.User.Username, tr.Status.User.Groups, tr.Status.User.UID, true
}
