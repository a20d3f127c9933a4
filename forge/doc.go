// Package forge is what a team needs to run gloss through a forge and its
// CI, where no developer's hook runs:
//
//   - Check runs the pre-push checks (specs affected and drifted, spec
//     validation, task lint of changed task files, Noma validation of
//     changed documents) over a commit range, so that `git push
//     --no-verify` cannot skip them; WriteGitHub, WriteText and WriteSARIF
//     print the findings for the CI the check runs in.
//   - Carry moves annotation records from a pull request's commits onto
//     the commits a server-side "squash and merge" or "rebase and merge"
//     made, where no post-rewrite hook ran, and pushes them without force.
//
// Both fetch gloss's notes refs themselves: CI checkouts do not.
package forge
