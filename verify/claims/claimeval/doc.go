// Package claimeval measures the claims check (package verify/claims) on
// a set of final answers whose claims a careful person has marked true,
// false or unchecked: precision and recall per kind of claim, and the
// false FAILs on answers that make no false claim, each of which would
// cost a worker a round. It calls no model.
//
//	rep, err := claimeval.Run(ctx, claims.Config{}, claimeval.DefaultCases())
//	if err != nil {
//		return err
//	}
//	rep.WriteText(os.Stdout)
//
// The case format is documented in docs/eval.md; DefaultCases is the
// shipped set, in English and Chinese: true claims, false claims,
// claims code cannot check, and answers that quote figures that are not
// about files. `nightshift eval claims` runs it.
package claimeval
