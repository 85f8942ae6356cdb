// Package doccmd reads the shell commands turnsim's documentation shows, so that tests can run
// every one of them and a command that stops working fails the build instead of a newcomer.
//
// A command is a line of a ```sh block in README.md or docs/*.md (a line ending in a backslash
// goes on on the next). What its comment says is part of the contract:
//
//	go run ./cmd/simrun repro -seed 16 -plant drain-skipped   # exits 1: drain-real-results
//	curl -i http://127.0.0.1:PORT/…                           # not run: PORT is the one serve printed
//
// "exits N" is the exit code the command promises (0 without one); "not run: why" (or "not run
// here: why") marks a command shown for the reader that no test can run as written, and says why.
// Blocks of another language (```text, ```go, ```json, a bare ```) are not commands. The tests
// that run the commands are cmd/simrun's (README.md and docs/*.md) and sim/wire/replaydiff's
// (docs/replay.md's walk-through); each says how it shortens what would take minutes.
package doccmd

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Command is one command of a page's shell blocks.
type Command struct {
	// File is the page's path as given; Line is the 1-based line the command starts on.
	File string
	Line int
	// Text is the command, continuation lines joined by a space, without its comment.
	Text string
	// Comment is what follows the command's " #", trimmed ("" for none).
	Comment string
	// Code is the exit code the comment promises ("exits N"); 0 without one.
	Code int
	// NotRun is why the command is not run, from its comment ("not run: …"); "" when it is.
	NotRun string
}

// String names the command by its place, for a test's failure message.
func (c Command) String() string { return fmt.Sprintf("%s:%d: %s", c.File, c.Line, c.Text) }

var (
	exitsRE  = regexp.MustCompile(`\bexits (\d+)\b`)
	notRunRE = regexp.MustCompile(`\bnot run(?: here)?: *(.+)$`)
)

// Parse returns the commands of the ```sh blocks of one Markdown page, in order.
func Parse(file string, page []byte) []Command {
	var commands []Command
	inShell, inOther := false, false
	pending, pendingLine := "", 0
	for i, line := range strings.Split(string(page), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			switch {
			case inShell || inOther:
				inShell, inOther = false, false
			case strings.TrimSpace(strings.TrimPrefix(trimmed, "```")) == "sh":
				inShell = true
			default:
				inOther = true
			}
			pending = ""
			continue
		}
		if !inShell {
			continue
		}
		if pending == "" {
			pendingLine = i + 1
		}
		if body, ok := strings.CutSuffix(strings.TrimRight(line, " \t"), `\`); ok {
			pending += strings.TrimSpace(body) + " "
			continue
		}
		text, comment := cutComment(pending + trimmed)
		pending = ""
		if text == "" {
			continue // a blank line, or a comment of its own
		}
		c := Command{File: file, Line: pendingLine, Text: text, Comment: comment}
		if m := exitsRE.FindStringSubmatch(comment); m != nil {
			c.Code, _ = strconv.Atoi(m[1])
		}
		if m := notRunRE.FindStringSubmatch(comment); m != nil {
			c.NotRun = strings.TrimSpace(m[1])
		}
		commands = append(commands, c)
	}
	return commands
}

// Read returns the commands of the page at path.
func Read(path string) ([]Command, error) {
	page, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("doccmd: %w", err)
	}
	return Parse(path, page), nil
}

// Pages are the documentation's pages under the module root: README.md, then docs/*.md sorted.
func Pages(root string) ([]string, error) {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, fmt.Errorf("doccmd: %w", err)
	}
	sort.Strings(docs)
	return append([]string{filepath.Join(root, "README.md")}, docs...), nil
}

// cutComment splits a shell line at its comment: a # at the start or after a blank, outside
// quotes.
func cutComment(line string) (text, comment string) {
	var quote rune
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return strings.TrimSpace(line[:i]), strings.TrimSpace(line[i+1:])
		}
	}
	return strings.TrimSpace(line), ""
}

// Words splits a command into its words as a shell would without expanding anything: blanks
// separate words, and single or double quotes group (`-corpus ""` is the flag and an empty
// word). A redirection of standard output (`> FILE`) is taken out and returned as stdout.
func Words(text string) (words []string, stdout string) {
	var word strings.Builder
	inWord, quote := false, rune(0)
	redirect := false
	flush := func() {
		if !inWord {
			return
		}
		if redirect {
			stdout, redirect = word.String(), false
		} else {
			words = append(words, word.String())
		}
		word.Reset()
		inWord = false
	}
	for _, r := range text {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			flush()
		case r == '>' && !inWord:
			redirect = true
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	flush()
	return words, stdout
}
