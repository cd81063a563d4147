// Package svcname finds Service host names in configuration strings
// (URLs, host:port pairs, connection strings) and says which of them a
// Windows pod can resolve: Windows has one DNS suffix, the pod's
// namespace's, and treats a name with a dot as fully qualified.
package svcname
