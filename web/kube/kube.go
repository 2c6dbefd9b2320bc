// Package kube is the console's presentation of Kubernetes API data, shared
// by the features that show it: a server-side Table as a list shows it
// (columns, rows, links, sort), table cells and ages, CPU and memory
// quantities, the kubectl command of a page, the access checks behind each
// action and kubectl's choice of a pod's container. It is pure: no echo, no
// I/O, and it imports only apiclient and views, so that any page (one
// cluster's or several's) can use it.
package kube
