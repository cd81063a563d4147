package dist

import (
	"go/parser"
	"go/token"
)

func parsePackage(src []byte) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", src, parser.PackageClauseOnly)
	if err != nil {
		return "", err
	}
	return f.Name.Name, nil
}
