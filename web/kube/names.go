package kube

// GroupLabel names an API group as pages show it: "core" for the legacy group.
func GroupLabel(group string) string {
	if group == "" {
		return "core"
	}
	return group
}
