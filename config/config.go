// Package config reads gloss's two layers of configuration:
//
//   - team settings in .gloss/config.toml, committed with the code, one
//     table per capability ([hooks], [tasks], [notebook], …);
//   - personal settings in git config under gloss.* (gloss.annotator,
//     gloss.agent, gloss.prepush, …), which never travel with a clone.
//
// Anything that names a command to run is personal only: a committed file
// must never be able to make gloss execute something (cloning a hostile
// repository must be safe).
package config

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/safepath"
)

// TeamFile is the team configuration, relative to the repository root.
const TeamFile = ".gloss/config.toml"

// Config is the merged view of both layers.
type Config struct {
	// TeamPath is the team file's absolute path ("" in a bare repository).
	TeamPath string
	// TeamPresent says whether the team file exists.
	TeamPresent bool

	team     map[string]toml.Primitive
	meta     toml.MetaData
	personal map[string]string
}

// Load reads the team file from the working tree and gloss.* from git
// config. A missing team file is an empty one; a malformed one is an error
// that names the line.
func Load(ctx context.Context, repo *gitops.Repo) (*Config, error) {
	c, err := LoadTeam(repo)
	if err != nil {
		return nil, err
	}
	kv, err := repo.ConfigMatching(ctx, `^gloss\.`)
	if err != nil {
		return nil, fmt.Errorf("read git config: %w", err)
	}
	for _, p := range kv {
		c.personal[p[0]] = p[1] // the last value wins, as in git
	}
	return c, nil
}

// LoadTeam reads only the team file: for callers that need no personal
// setting, it spares the git process that reading git config costs.
func LoadTeam(repo *gitops.Repo) (*Config, error) {
	c := &Config{team: map[string]toml.Primitive{}, personal: map[string]string{}}
	if repo.Root() == "" {
		return c, nil
	}
	c.TeamPath = filepath.Join(repo.Root(), filepath.FromSlash(TeamFile))
	tree, err := safepath.ForRepo(repo)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	data, err := tree.ReadFile(TeamFile, 1<<20)
	switch {
	case err == nil:
		c.TeamPresent = true
		return c, c.parseTeam(data)
	case fault.KindOf(err) == fault.NotFound:
		return c, nil
	}
	return nil, fmt.Errorf("read %s: %w", TeamFile, err)
}

// Parse reads team configuration from bytes, for tests and validation.
func Parse(data []byte) (*Config, error) {
	c := &Config{team: map[string]toml.Primitive{}, personal: map[string]string{}}
	return c, c.parseTeam(data)
}

func (c *Config) parseTeam(data []byte) error {
	md, err := toml.Decode(string(data), &c.team)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return fault.Usagef("%s:%d: %s", TeamFile, pe.Position.Line, pe.Message)
		}
		return fault.Usagef("%s: %v", TeamFile, err)
	}
	c.meta = md
	return nil
}

// Section decodes the team table [name] into v (a pointer to a struct with
// toml tags). v keeps its defaults for keys the file does not set. Keys
// the struct does not know are reported, so a typo does not pass silently.
func (c *Config) Section(name string, v any) error {
	prim, ok := c.team[name]
	if !ok {
		return nil
	}
	if err := c.meta.PrimitiveDecode(prim, v); err != nil {
		return fault.Usagef("%s: [%s]: %v", TeamFile, name, err)
	}
	var unknown []string
	for _, k := range c.meta.Undecoded() {
		if len(k) > 1 && k[0] == name {
			unknown = append(unknown, k.String())
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return fault.Usagef("%s: unknown setting(s): %s", TeamFile, strings.Join(unknown, ", "))
	}
	return nil
}

// Sections lists the tables the team file sets.
func (c *Config) Sections() []string {
	var names []string
	for k := range c.team {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// Personal returns a gloss.* git config value (key without the "gloss."
// prefix, case-insensitive as in git) and whether it is set.
func (c *Config) Personal(key string) (string, bool) {
	v, ok := c.personal["gloss."+strings.ToLower(key)]
	return v, ok
}

// PersonalAll returns every gloss.* setting, for status reports.
func (c *Config) PersonalAll() map[string]string {
	out := make(map[string]string, len(c.personal))
	for k, v := range c.personal {
		out[k] = v
	}
	return out
}
