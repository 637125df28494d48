package risk

// Reads are the files a command's programs read for their configuration:
// who can change them can change what the command does.
type Reads struct {
	InProject []string // paths relative to the project root, slash-separated (".git/config", "src/.gitignore")
	Outside   []string // absolute paths of files outside the project (~/.gitconfig)
}

// Trust returns the files command, run in project root, reads for its
// configuration.
//
// A stand-in until the real one lands: it names git's files whatever the
// command.
func Trust(root, command string) (Reads, error) {
	return Reads{InProject: []string{".git/config", ".git/hooks/post-index-change", ".gitignore"}}, nil
}
