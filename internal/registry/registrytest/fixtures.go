package registrytest

import "errors"

// Fixtures pushes the standard images and returns their references (as
// a user writes them, with the registry host):
//
//	windows/servercore:ltsc2019 / :ltsc2022 / :ltsc2025   single Windows builds
//	windows/multi:latest        index 17763, 20348, 26100 (+win32k)
//	shop/orders:1.4.2           custom tag, built on 20348, no build hint
//	shop/web:2.0                mixed index: linux/amd64, linux/arm64, windows 20348
//	tools/busybox:1.36          single-platform linux/amd64
//	private/app:1.0             an index 20348 + 26100 that needs credentials
//	charts/web:0.1.0            a Helm chart, not an image
//	windows/nanoserver:ltsc2022 single Windows 20348, user ContainerUser
//	shop/admin:1.0              index 20348 + 26100, user ContainerAdministrator
//	shop/mixed:1.0              index 20348 (ContainerUser) + 26100 (no user)
func (s *Server) Fixtures() (map[string]string, error) {
	out := map[string]string{}
	var errs []error
	push := func(key, ref string, f func(string) (string, error)) {
		d, err := f(ref)
		errs = append(errs, err)
		out[key] = s.Host + "/" + ref
		_ = d
	}
	single := func(p Platform) func(string) (string, error) {
		return func(ref string) (string, error) { return s.PushImage(ref, p, 0) }
	}
	index := func(ps ...Platform) func(string) (string, error) {
		return func(ref string) (string, error) { return s.PushIndex(ref, ps...) }
	}
	push("ltsc2019", "windows/servercore:ltsc2019", single(Windows("10.0.17763.6414")))
	push("ltsc2022", "windows/servercore:ltsc2022", single(Windows("10.0.20348.2966")))
	push("ltsc2025", "windows/servercore:ltsc2025", single(Windows("10.0.26100.2605")))
	push("multi", "windows/multi:latest", index(Windows("10.0.17763.6414"), Windows("10.0.20348.2966"), Windows("10.0.26100.2605", "win32k")))
	push("orders", "shop/orders:1.4.2", single(Windows("10.0.20348.2461")))
	push("web", "shop/web:2.0", index(Linux("amd64"), Linux("arm64"), Windows("10.0.20348.2966")))
	push("busybox", "tools/busybox:1.36", single(Linux("amd64")))
	push("private", "private/app:1.0", index(Windows("10.0.20348.2966"), Windows("10.0.26100.2605")))
	push("nano", "windows/nanoserver:ltsc2022", single(Windows("10.0.20348.2966").As("ContainerUser")))
	push("admin", "shop/admin:1.0", index(Windows("10.0.20348.2966").As("ContainerAdministrator"), Windows("10.0.26100.2605").As("ContainerAdministrator")))
	push("mixed", "shop/mixed:1.0", index(Windows("10.0.20348.2966").As("ContainerUser"), Windows("10.0.26100.2605")))
	errs = append(errs, s.PushArtifact("charts/web:0.1.0"))
	out["chart"] = s.Host + "/charts/web:0.1.0"
	return out, errors.Join(errs...)
}
