// Package cloudprofile reads the node pools users keep as code (eksctl
// ClusterConfig, Terraform, ARM templates, Karpenter NodePools, and az,
// eksctl, gcloud and aws commands in scripts) into a cluster profile, and
// reports what in them strands pods on a hybrid cluster.
package cloudprofile
