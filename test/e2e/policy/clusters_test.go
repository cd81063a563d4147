package policy

import "github.com/winkube/winkube/internal/rules/rulestest"

// testClusters are the cluster profiles a rule fixture's "# cluster:"
// header chooses: the rule fixture test's own.
var testClusters = rulestest.Clusters
