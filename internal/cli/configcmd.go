package cli

import (
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/llm/wire"
)

func newConfigCmd(a *cliApp) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show and change configuration (list, get, set, path)",
		Args:  cobra.NoArgs,
	}
	var project bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List every key with its value (secrets masked) and where it came from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			for _, e := range config.List(rt.Config) {
				fmt.Fprintf(w, "%s\t%s\t%s\n", e.Key, e.Value, e.Source)
			}
			return w.Flush()
		},
	}
	get := &cobra.Command{
		Use:   "get KEY",
		Short: "Print one key's value (secrets masked)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			e, err := config.Get(rt.Config, args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), e.Value)
			return nil
		},
	}
	set := &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Set a key in the global config file (--project: this workspace's .aidex/config.toml)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := a.configFile(project)
			if err != nil {
				return err
			}
			key := args[0]
			if nk, old := config.OldName(key); old {
				fmt.Fprintf(a.proc.Stderr, "aidex: %s\n", config.DeprecationNotice(key, nk))
				key = nk
			}
			if err := config.Set(path, key, args[1], wire.ConfigFormats()...); errors.Is(err, config.ErrNotPrivate) {
				fmt.Fprintf(a.proc.Stderr, "aidex: warning: %v\n", err)
			} else if err != nil {
				return usageErr("%v", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s set in %s\n", key, path)
			return nil
		},
	}
	set.Flags().BoolVar(&project, "project", false, "write to the workspace's .aidex/config.toml")
	path := &cobra.Command{
		Use:   "path",
		Short: "Print the config files and data directories aidex uses",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			p := rt.Config.Paths
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintf(w, "global config\t%s\n", p.ConfigFile)
			fmt.Fprintf(w, "project config\t%s\n", config.ProjectConfigFile(rt.Workspace))
			fmt.Fprintf(w, "data\t%s\n", p.DataDir)
			fmt.Fprintf(w, "state\t%s\n", p.StateDir)
			fmt.Fprintf(w, "cache\t%s\n", p.CacheDir)
			return w.Flush()
		},
	}
	cmd.AddCommand(list, get, set, path)
	return cmd
}

// configFile returns the global config file, or the workspace's project
// file.
func (a *cliApp) configFile(project bool) (string, error) {
	rt, err := a.catalogOnly()
	if err != nil {
		return "", err
	}
	if project {
		return config.ProjectConfigFile(rt.Workspace), nil
	}
	return rt.Config.Paths.ConfigFile, nil
}
