package harness

import "fmt"

// toolSet is the agent's registered tools, found by name: by a scan of their names while they
// are few, as an agent's usually are, and past toolSetScanMax tools through an index, so that an
// agent with many tools does not pay a long scan per call.
type toolSet struct {
	tools []Tool
	// names are the tools' names in registration order: a request's Tools (nil without tools).
	names []string
	// index maps a name to its place in tools; made only past toolSetScanMax tools.
	index map[string]int
}

// toolSetScanMax is the most tools a set finds by scanning its names.
const toolSetScanMax = 8

// newToolSet copies tools (the caller's slice is theirs), refusing a tool without a name or a
// Run function and a name registered twice.
func newToolSet(tools []Tool) (toolSet, error) {
	if len(tools) == 0 {
		return toolSet{}, nil
	}
	s := toolSet{tools: make([]Tool, 0, len(tools)), names: make([]string, 0, len(tools))}
	if len(tools) > toolSetScanMax {
		s.index = make(map[string]int, len(tools))
	}
	for _, t := range tools {
		if t.Name == "" || t.Run == nil {
			return toolSet{}, fmt.Errorf("harness: config: tool %q needs a name and a Run function", t.Name)
		}
		if _, dup := s.lookup(t.Name); dup {
			return toolSet{}, fmt.Errorf("harness: config: tool %q is registered twice", t.Name)
		}
		if s.index != nil {
			s.index[t.Name] = len(s.tools)
		}
		s.tools = append(s.tools, t)
		s.names = append(s.names, t.Name)
	}
	return s, nil
}

// lookup returns the tool registered as name, and whether there is one.
func (s *toolSet) lookup(name string) (Tool, bool) {
	if s.index != nil {
		i, ok := s.index[name]
		if !ok {
			return Tool{}, false
		}
		return s.tools[i], true
	}
	for i, known := range s.names {
		if known == name {
			return s.tools[i], true
		}
	}
	return Tool{}, false
}
