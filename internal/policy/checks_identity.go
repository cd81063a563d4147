package policy

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// The single-object rules of issue 20: annotations nothing reads, images
// from retired or never-published repositories and tags, and the Windows
// kubelet's runAsNonRoot check. All decide from the object alone; the
// image users come from winsupport's table of well-known images, as lint
// reads them without --resolve-images.

// nonRootVariables derive, per container in winsupport.VisitContainers
// order, the effective runAsNonRoot and windowsOptions.runAsUserName (the
// container's over the pod's, winsupport.RunAsNonRoot) and the user the
// image table names for its image:
//
//	nonRootOn    runAsNonRoot is true
//	userNameSet  runAsUserName is set at container or pod level
//	userName     its value, '' when unset
//	imgUser      [] when the table does not know the image, else [user]
func nonRootVariables(m winsupport.Model) []variable {
	rows := m.ImageUserRows()
	// The longest matching row wins (ImageUser): longest first.
	sort.SliceStable(rows, func(i, j int) bool { return len(rows[i].Repo) > len(rows[j].Repo) })
	var table []string
	for _, r := range rows {
		table = append(table, celList([]string{r.Repo, r.User}))
	}
	psc := `variables.spec.?securityContext`
	csc := `c.?securityContext`
	return []variable{
		{"nonRootOn", `variables.containers.map(c, ` + csc + `.?runAsNonRoot.orValue(` + psc + `.?runAsNonRoot.orValue(false)) == true)`},
		{"userNameSet", `variables.containers.map(c, ` + csc + `.?windowsOptions.?runAsUserName.hasValue() || ` + psc + `.?windowsOptions.?runAsUserName.hasValue())`},
		{"userName", `variables.containers.map(c, ` + csc + `.?windowsOptions.?runAsUserName.orValue(` + psc + `.?windowsOptions.?runAsUserName.orValue('')))`},
		{"imgUser", `variables.imgRepos.map(r, [` + strings.Join(table, ", ") + `].filter(x, r == x[0] || (x[0].endsWith('/') && r.startsWith(x[0]))).map(x, x[1]))`},
	}
}

// rootName is CEL for strings.EqualFold(s, winsupport.WindowsRootUserName):
// RE2's (?i) folds case as EqualFold does.
func rootName(s string) string {
	return s + `.matches(` + celString(`(?i)^`+regexp.QuoteMeta(winsupport.WindowsRootUserName)+`$`) + `)`
}

// templateAnnotations is CEL for the pod template's annotations
// (manifest.Workload.Template; the Pod's own for a Pod).
const templateAnnotations = `(object.kind == 'Pod' ? object.metadata.?annotations.orValue({}) : object.kind == 'PodTemplate' ? object.template.?metadata.?annotations.orValue({}) : ` +
	`object.kind == 'CronJob' ? object.spec.jobTemplate.spec.template.?metadata.?annotations.orValue({}) : object.spec.template.?metadata.?annotations.orValue({}))`

// gmsaChecks is gmsa-missing-credential-spec-name, for any workload: the
// gMSA webhook's refusal of a credential spec without its name (the pod's,
// then each init and regular container's), then the legacy alpha
// annotations of the pod template in key order.
func gmsaChecks(winsupport.Model) []check {
	inlined := func(sc string) string {
		return sc + `.?windowsOptions.?gmsaCredentialSpec.hasValue() && !` + sc + `.?windowsOptions.?gmsaCredentialSpecName.hasValue()`
	}
	pod := inlined(`variables.spec.?securityContext`)
	ctr := inlined(`c.?securityContext`)
	base := `(k.endsWith(` + celString(rules.GMSANameSuffix) + `) ? k.substring(0, size(k) - ` + strconv.Itoa(len(rules.GMSANameSuffix)) + `) : k)`
	legacy := base + ` == ` + celString(rules.GMSAPodAnnotation) + ` || (` + base + `.endsWith(` + celString(rules.GMSAContainerAnnotation) + `) && size(` + base + `) > ` + strconv.Itoa(len(rules.GMSAContainerAnnotation)) + `)`
	containers := func(kind, list string) string {
		return `variables.spec.?` + list + `.orValue([]).filter(c, ` + ctr + `).map(c, ` + celf(rules.GMSAInlinedWithoutNameMsg, celString(kind), `c.name`) + `)`
	}
	msgs := `(` + pod + ` ? [` + celf(rules.GMSAInlinedWithoutNameMsg, `'pod'`, `object.metadata.?name.orValue('')`) + `] : []) + ` +
		containers("initContainer", "initContainers") + ` + ` + containers("container", "containers") + ` + ` +
		templateAnnotations + `.map(k, k).filter(k, ` + legacy + `).sortBy(k, k).map(k, ` + celf(rules.GMSALegacyAnnotationMsg, `k`) + `)`
	fires := `(` + pod + `) || variables.spec.?initContainers.orValue([]).exists(c, ` + ctr + `) || variables.spec.?containers.orValue([]).exists(c, ` + ctr + `) || ` +
		templateAnnotations + `.exists(k, ` + legacy + `)`
	return []check{{expr: fires, detail: `(` + msgs + `).join('; ')`}}
}

var identityChecks = map[*rule.Rule]exporter{
	rules.GMSAMissingCredentialSpecName: gmsaChecks,
	rules.WindowsIgnoredAnnotation: func(winsupport.Model) []check {
		ann := templateAnnotations
		keys := celList(rules.IgnoredWindowsAnnotationKeys())
		return []check{{expr: keys + `.exists(k, k in ` + ann + `)`,
			detail: keys + `.filter(k, k in ` + ann + `).map(k, ` + celf(rules.IgnoredAnnotationMsg, `k`, ann+`[k]`) + `).join('; ')`}}
	},
	rules.RetiredWindowsImage: func(winsupport.Model) []check {
		// winsupport.Model.MovedRepo, for images whose tag names no build
		// (the build rules judge the others).
		to := map[string]string{}
		for _, mv := range movedRepos {
			to[mv.From] = mv.To
		}
		moved := mapLiteral(to)
		retired := `variables.imgRepos[i] in ` + moved + ` && variables.imgBuilds[i] == ''`
		return []check{{expr: `variables.containers.exists(i, c, ` + retired + `)`,
			detail: `variables.containers.transformList(i, c, ` + retired + `, ` + celf(rules.RetiredImageMsg, `c.image`, moved+`[variables.imgRepos[i]]`) + `).join('; ')`}}
	},
	rules.WindowsImageRepositoryDeleted: func(winsupport.Model) []check {
		// winsupport.Model.DeletedRepo, in a workload of any OS; the skip
		// condition sees the images by their "windows" needle
		// (TestDeletedReposHoldANeedle).
		deleted := `variables.imgRepos[i] in ` + celList(winsupport.DeletedRepos())
		return []check{{expr: `variables.containers.exists(i, c, ` + deleted + `)`,
			detail: `variables.containers.transformList(i, c, ` + deleted + `, ` +
				celf(rules.DeletedRepoMsg, `c.image`, `variables.imgRepos[i].substring(`+strconv.Itoa(len("docker.io/"))+`)`, celString(winsupport.PullAccessDenied)) + `).join('; ')`}}
	},
	rules.WindowsImageTagUnpublished: func(m winsupport.Model) []check {
		// winsupport.Model.UnpublishedTag: Nano Server's 2019 build is
		// tagged 1809, never ltsc2019 (the build's first tag).
		e := nanoserverTagException
		first := ""
		if b, ok := m.BuildByNumber(e.Build); ok && len(b.Tags) > 0 {
			first = b.Tags[0]
		}
		if first == "" || first == e.Tag {
			return nil
		}
		tag := `variables.imgRefs[i].substring(variables.imgRefs[i].lastIndexOf(':') + 1)`
		at := tag + `.lowerAscii().indexOf(` + celString(first) + `)`
		bad := `variables.imgBuilds[i] == ` + celString(e.Build) + ` && variables.imgTags[i] != '' && !c.?image.orValue('').contains('@') && ` +
			`variables.imgRepos[i].startsWith(` + celString(e.Prefix) + `) && variables.imgTags[i].contains(` + celString(first) + `)`
		fixed := `c.image.substring(0, size(c.image) - size(` + tag + `)) + ` + tag + `.substring(0, ` + at + `) + ` + celString(e.Tag) + ` + ` + tag + `.substring(` + at + ` + ` + strconv.Itoa(len(first)) + `)`
		return []check{{expr: `variables.containers.exists(i, c, ` + bad + `)`,
			detail: `variables.containers.transformList(i, c, ` + bad + `, ` + celf(rules.UnpublishedTagMsg, `c.image`, fixed) + `).join('; ')`}}
	},
	rules.WindowsRunAsNonRootAdministrator: func(m winsupport.Model) []check {
		// winsupport.RunAsNonRoot's refusals: runAsUserName
		// ContainerAdministrator, or, unset, an image whose table row
		// names ContainerAdministrator. The message is the kubelet's, with
		// <pod> for the pod (rules.nonRootMessage).
		byName := `variables.nonRootOn[i] && variables.userNameSet[i] && ` + rootName(`variables.userName[i]`)
		byImage := `variables.nonRootOn[i] && !variables.userNameSet[i] && size(variables.imgUser[i]) > 0 && ` + rootName(`variables.imgUser[i][0]`)
		msg := func(format, user string) string {
			return `'CreateContainerConfigError: ' + ` + celf(format, user, `'<pod>'`, `c.name`)
		}
		refused := `(` + byName + `) || (` + byImage + `)`
		return []check{{expr: win + ` && variables.containers.exists(i, c, ` + refused + `)`,
			detail: `variables.containers.transformList(i, c, ` + refused + `, ` + byName + ` ? ` + msg(winsupport.KubeletRunAsUserNameRoot, `variables.userName[i]`) + ` : ` +
				msg(winsupport.KubeletImageUserRoot, `variables.imgUser[i][0]`) + `).join('; ')`}}
	},
	rules.WindowsRunAsNonRootNotEnforced: func(winsupport.Model) []check {
		// winsupport.RunAsNonRoot's NonRootNotEnforced: runAsNonRoot, no
		// runAsUserName, and an image the table says names no user.
		open := `variables.nonRootOn[i] && !variables.userNameSet[i] && size(variables.imgUser[i]) > 0 && variables.imgUser[i][0] == ''`
		return []check{{expr: win + ` && variables.containers.exists(i, c, ` + open + `)`,
			detail: `variables.containers.transformList(i, c, ` + open + `, ` + celf(rules.NonRootNotEnforcedMsg, `c.name`, `c.image`) + `).join('; ')`}}
	},
}
