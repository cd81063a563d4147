package manifest

import "testing"

func TestPlaceholder(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"<image-name>", "<image-name>"},
		{"__acrName__.azurecr.io/app:1", "__acrName__"},
		{"${CNI_IMAGE}", "${CNI_IMAGE}"},
		{"REPLACE_WITH_YOUR_IMAGE", "REPLACE_WITH_YOUR_IMAGE"},
		{"myregistry.azurecr.io/REPLACE_ME:1.0", "REPLACE_ME"},
		{"YOUR_REGISTRY/app:1.0", "YOUR_REGISTRY"},
		// Azure Pipelines' Replace Tokens task leaves #{name}# unfilled.
		{"#{acrLoginServer}#/web:#{Build.BuildId}#", "#{acrLoginServer}#"},
		{"myapp-#{env}#", "#{env}#"},
		// clusterctl and envsubst expand shell parameter expansions.
		{"sigwindowstools/kube-proxy:${KUBERNETES_VERSION/+/_}-calico-hostprocess", "${KUBERNETES_VERSION/+/_}"},
		{"${REGISTRY:-docker.io}/app:1", "${REGISTRY:-docker.io}"},
		// .NET configuration keys in env names are not placeholders.
		{"Logging__LogLevel__Default", ""},
		{"ConnectionStrings__Default", ""},
		{"app_YOUR_thing", ""},
		{"registry.k8s.io/pause:3.10", ""},
	}
	for _, c := range cases {
		if got := placeholder(c.in); got != c.want {
			t.Errorf("placeholder(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// An env var named like a .NET configuration key loads cleanly; an
// upper-case placeholder in an image is one load error.
func TestPlaceholderInDocument(t *testing.T) {
	t.Parallel()
	src := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: app\n    image: REPLACE_WITH_IMAGE\n    env:\n    - {name: Logging__LogLevel__Default, value: Warning}\n"
	root, err := parseYAML("p.yaml", 1, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	errs := placeholders("p.yaml", root)
	if len(errs) != 1 || errs[0].Line != 7 || errs[0].Msg != `image: placeholder "REPLACE_WITH_IMAGE" was never filled in` {
		for _, e := range errs {
			t.Errorf("got %s:%d: %s", e.File, e.Line, e.Msg)
		}
		t.Fatalf("want one error on line 7, got %d", len(errs))
	}
}
