package report

import (
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/winkube/winkube/internal/rule"
)

// SARIF 2.1.0 identifiers. The schema URI is the OASIS errata01 schema,
// vendored in testdata for the validation test.
const (
	sarifVersion   = "2.1.0"
	sarifSchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	informationURI = "https://github.com/winkube/winkube"
	// StdinURI is the artifact URI of findings read from stdin: "<stdin>"
	// is not a valid URI reference, and SARIF has no standard name for
	// standard input. The location's description says what it is.
	StdinURI = "stdin"
	// stdinName is what manifest.Inputs calls stdin.
	stdinName = "<stdin>"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool struct {
		Driver sarifDriver `json:"driver"`
	} `json:"tool"`
	// Columns come from the YAML parser, which counts characters.
	ColumnKind string        `json:"columnKind"`
	Results    []sarifResult `json:"results"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string     `json:"id"`
	Name                 string     `json:"name,omitempty"`
	ShortDescription     *sarifText `json:"shortDescription,omitempty"`
	FullDescription      *sarifText `json:"fullDescription,omitempty"`
	Help                 *sarifText `json:"help,omitempty"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
	Properties *sarifRuleProps `json:"properties,omitempty"`
}

type sarifRuleProps struct {
	Category string `json:"category"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
	// RelatedLocations: the rendered position of a chart's or
	// kustomization's finding (SARIF 2.1.0 §3.27.22).
	RelatedLocations []sarifLocation    `json:"relatedLocations,omitempty"`
	Suppressions     []sarifSuppression `json:"suppressions,omitempty"`
	Properties       *sarifResultProps  `json:"properties,omitempty"`
}

type sarifLocation struct {
	ID               int            `json:"id,omitempty"`
	Message          *sarifText     `json:"message,omitempty"`
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI         string     `json:"uri"`
	Description *sarifText `json:"description,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifLogical struct {
	Name               string      `json:"name,omitempty"`
	FullyQualifiedName string      `json:"fullyQualifiedName,omitempty"`
	Kind               string      `json:"kind"`
	Properties         *jsonObject `json:"properties,omitempty"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification"`
}

type sarifResultProps struct {
	// SARIF fixes need artifactChanges with text replacements; a winkube
	// fix is a list of field edits, so it travels as a property.
	Fix *jsonFix `json:"fix"`
}

// SARIF writes a SARIF 2.1.0 log with one run. The driver describes every
// rule that ran (and any other rule a finding names); results keep the
// report's order. Artifact URIs are the input paths, cleaned and
// slash-separated; absolute paths become file: URIs, and stdin is StdinURI.
// Suppressed findings are results with an inSource suppression.
func SARIF(w io.Writer, r *Report) error {
	run := sarifRun{ColumnKind: "unicodeCodePoints", Results: []sarifResult{}}
	run.Tool.Driver = sarifDriver{Name: "winkube", Version: r.Tool, InformationURI: informationURI, Rules: []sarifRule{}}
	index := map[string]int{}
	addRule := func(sr sarifRule) {
		index[sr.ID] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sr)
	}
	for _, ru := range r.Rules {
		if _, dup := index[ru.ID]; !dup {
			addRule(sarifRuleOf(ru))
		}
	}
	// A finding may name a rule outside r.Rules (a load error found before
	// the config was read); its result still needs a descriptor.
	for _, f := range r.Findings {
		if _, ok := index[f.Rule]; !ok {
			sr := sarifRule{ID: f.Rule, Name: ruleName(f.Rule)}
			sr.DefaultConfiguration.Level = sarifLevel(f.Severity)
			addRule(sr)
		}
	}
	for _, f := range r.Findings {
		run.Results = append(run.Results, sarifResultOf(f, index[f.Rule]))
	}
	return WriteJSON(w, sarifLog{Schema: sarifSchemaURI, Version: sarifVersion, Runs: []sarifRun{run}})
}

func sarifRuleOf(ru *rule.Rule) sarifRule {
	sr := sarifRule{
		ID:               ru.ID,
		Name:             ruleName(ru.ID),
		ShortDescription: &sarifText{Text: ru.Title},
		FullDescription:  &sarifText{Text: ru.Doc.What},
		Help:             ruleHelp(ru),
		Properties:       &sarifRuleProps{Category: string(ru.Category)},
	}
	sr.DefaultConfiguration.Level = sarifLevel(ru.Severity)
	return sr
}

// ruleHelp renders why, fix and sources as plain text and Markdown.
func ruleHelp(ru *rule.Rule) *sarifText {
	var t, m strings.Builder
	t.WriteString("Why it matters on Windows: " + ru.Doc.Why + "\n\nHow to fix: " + ru.Doc.Fix)
	m.WriteString("**Why it matters on Windows**\n\n" + EscapeMarkdown(ru.Doc.Why) + "\n\n**How to fix**\n\n" + EscapeMarkdown(ru.Doc.Fix))
	if len(ru.Doc.Sources) > 0 {
		t.WriteString("\n\nSources:")
		m.WriteString("\n\n**Sources**\n")
		for _, s := range ru.Doc.Sources {
			t.WriteString("\n- " + s)
			m.WriteString("\n- " + EscapeMarkdown(s))
		}
	}
	return &sarifText{Text: t.String(), Markdown: m.String()}
}

// ruleName turns a kebab-case ID into the identifier SARIF asks for in
// reportingDescriptor.name: missing-os-pin becomes MissingOsPin.
func ruleName(id string) string {
	var b strings.Builder
	for _, part := range strings.Split(id, "-") {
		for i, r := range part {
			if i == 0 {
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

func sarifLevel(s rule.Severity) string {
	switch s {
	case rule.Error:
		return "error"
	case rule.Warning:
		return "warning"
	}
	return "note"
}

func sarifResultOf(f rule.Finding, ruleIndex int) sarifResult {
	text := f.Message
	if f.Hint != "" {
		text += "\nhint: " + f.Hint
	}
	res := sarifResult{RuleID: f.Rule, RuleIndex: ruleIndex, Level: sarifLevel(f.Severity), Message: sarifText{Text: text}}
	var loc sarifLocation
	if f.File != "" {
		phys := &sarifPhysical{ArtifactLocation: artifactOf(f.File)}
		if f.Line > 0 {
			phys.Region = &sarifRegion{StartLine: f.Line, StartColumn: f.Column}
		}
		loc.PhysicalLocation = phys
	}
	loc.LogicalLocations = logicalOf(f)
	res.Locations = []sarifLocation{}
	if loc.PhysicalLocation != nil || len(loc.LogicalLocations) > 0 {
		res.Locations = append(res.Locations, loc)
	}
	for i, l := range f.Related {
		phys := &sarifPhysical{ArtifactLocation: artifactOf(l.File)}
		if l.Line > 0 {
			phys.Region = &sarifRegion{StartLine: l.Line, StartColumn: l.Column}
		}
		res.RelatedLocations = append(res.RelatedLocations, sarifLocation{ID: i + 1, PhysicalLocation: phys, Message: &sarifText{Text: l.Message}})
	}
	if f.Suppressed {
		res.Suppressions = []sarifSuppression{{Kind: "inSource", Justification: "winkube.io/ignore annotation"}}
	}
	if j := toJSON(f); j.Fix != nil {
		res.Properties = &sarifResultProps{Fix: j.Fix}
	}
	return res
}

// logicalOf names the object (kind "resource") and, when the finding has
// one, the field (kind "property") as Kind/namespace/name:field.path.
func logicalOf(f rule.Finding) []sarifLogical {
	o := f.Object
	if o == nil {
		return nil
	}
	out := []sarifLogical{{Name: o.Name, FullyQualifiedName: o.Ref(), Kind: "resource",
		Properties: &jsonObject{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}}}
	if f.Path != "" {
		out = append(out, sarifLogical{Name: f.Path, FullyQualifiedName: o.Ref() + ":" + f.Path, Kind: "property"})
	}
	return out
}

// artifactOf turns an input path into a URI reference: relative paths stay
// relative (cleaned, forward slashes, percent-encoded), absolute ones
// become file: URIs.
func artifactOf(file string) sarifArtifact {
	if file == stdinName {
		return sarifArtifact{URI: StdinURI, Description: &sarifText{Text: "standard input"}}
	}
	p := filepath.ToSlash(filepath.Clean(file))
	if filepath.IsAbs(file) {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // C:/x on Windows
		}
		return sarifArtifact{URI: (&url.URL{Scheme: "file", Path: p}).String()}
	}
	// url.URL escapes what a URI cannot hold and guards a first segment
	// with a colon from being read as a scheme.
	return sarifArtifact{URI: (&url.URL{Path: p}).String()}
}
