package verify_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nightshift-dev/nightshift/verify"
)

// Rules count what the model only claims: the post is 3,341 characters, not
// the 3,847 the worker reported, and the judge is never asked.
func ExampleVerifier_Verify() {
	dir, _ := os.MkdirTemp("", "verify-example-")
	defer os.RemoveAll(dir)
	post := make([]rune, 3341)
	for i := range post {
		post[i] = '字'
	}
	os.WriteFile(filepath.Join(dir, "post.md"), []byte(string(post)), 0o644)

	var rules []verify.Rule
	for _, spec := range []string{"min-chars:post.md:4000", "exists:post.md"} {
		r, err := verify.ParseRule(spec, ".")
		if err != nil {
			fmt.Println("usage:", err)
			return
		}
		rules = append(rules, r)
	}
	v := &verify.Verifier{Rules: rules} // no Judge: --no-judge
	verdict, _, err := v.Verify(context.Background(), verify.Input{
		Task:    "write a post of at least 4000 characters in post.md",
		Answer:  "3,847 characters, meets the requirement",
		Dir:     dir,
		Changed: []string{"post.md"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("pass=%v check=%s\n[verifier] FAIL: %s\n", verdict.Pass, verdict.Check, verdict.Reason)
	// Output:
	// pass=false check=min-chars
	// [verifier] FAIL: min-chars post.md: 3341 < 4000
}

func ExampleParseVerdict() {
	for _, reply := range []string{"**PASS**\nall five steps", "PASSABLE", "FAIL: only 3 of the 5 steps"} {
		pass, reason := verify.ParseVerdict(reply)
		fmt.Printf("%v %q\n", pass, reason)
	}
	// Output:
	// true "all five steps"
	// false "the judge gave no verdict"
	// false "only 3 of the 5 steps"
}
