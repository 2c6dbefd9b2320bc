package web_test

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/tabula-console/tabula/"

// The layers of web/ (docs/architecture.md): features never import each
// other; web/page serves features and imports none; web/kube presents API
// data with no echo and no I/O above apiclient and views; the leaves
// import nothing of web/ but web/seal; apiclient, views and streaming
// import nothing of the module. Non-test code only: a feature's tests drive the
// whole console through web/webtest.
func TestPackagesKeepTheirLayers(t *testing.T) {
	features := []string{"web/access", "web/auth", "web/edit", "web/exec", "web/list", "web/logs", "web/object", "web/search", "web/changes", "web/problems", "web/fleet", "web/bulk"}
	leaves := []string{"web/compress", "web/csrf", "web/seal", "web/edit/yamltext", "web/textdiff"}
	imports := map[string][]string{}
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("..", path)
		rel = filepath.ToSlash(rel)
		if rel != "web" && !strings.HasPrefix(rel, "web/") && !slices.Contains([]string{"apiclient", "views", "streaming"}, rel) {
			if rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		pkg, err := build.ImportDir(path, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		}
		if err != nil {
			return err
		}
		for _, imp := range pkg.Imports {
			if p, ok := strings.CutPrefix(imp, module); ok {
				imports[rel] = append(imports[rel], p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < len(features) {
		t.Fatalf("read the imports of only %d packages: %v", len(imports), imports)
	}
	may := func(pkg string, allowed ...string) {
		for _, imp := range imports[pkg] {
			if !slices.ContainsFunc(allowed, func(a string) bool { return imp == a }) {
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
	base := []string{"apiclient", "views", "streaming"}
	below := append([]string{"web/page", "web/kube"}, append(leaves, base...)...)
	for _, f := range features {
		may(f, below...)
	}
	may("web/page", append([]string{"web/kube"}, append(leaves, base...)...)...)
	may("web/kube", "apiclient", "views")
	for _, l := range leaves {
		may(l, "views", "streaming", "web/seal") // seal names cookies for csrf too
	}
	for _, b := range base {
		may(b) // nothing of the module: not each other, not web
	}
	for pkg, imps := range imports {
		if pkg != "web/webtest" && slices.Contains(imps, "web/webtest") {
			t.Errorf("%s imports web/webtest outside its tests", pkg)
		}
	}
}
