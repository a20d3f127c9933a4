// Package review reports what gloss knows about a change, for the people
// (and the AI reviewers) who decide whether it goes in: the decisions in
// force where it lands (from why.Read, gloss's one "what is in force
// here" lookup), who wrote its lines (from line attribution, as git gloss
// blame), the agent sessions behind it, the specs and tasks it touches,
// and the findings of git gloss ci check over the same range. The report
// is bounded in size and renders as markdown (a pull-request comment, with
// a collapsed machine-readable block), plain text and gloss-review/v1
// JSON. Post keeps one comment per pull request up to date through the
// forge's REST API; Trailer is the opt-in AI-Share commit trailer.
//
// It sits in the workflow floor beside forge, whose check it runs: like
// forge it is a team's workflow on a forge built from the capabilities
// (why, attribution, spec, tasks) and the agents' session records.
package review
