// Package cluster models a hybrid cluster as node pools: what lint checks
// placement against and what simulate schedules onto.
package cluster
