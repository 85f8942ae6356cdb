package anthropic

import (
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/turnsim/turnsim/harness"
)

// params translates the harness's conversation into a Messages request. Tool results travel as
// tool_result blocks of a user message; consecutive entries of one role are merged into one
// message, since the API wants the roles to alternate.
func (p *Provider) params(request harness.Request) (sdk.MessageNewParams, error) {
	type turn struct {
		role   string
		blocks []sdk.ContentBlockParamUnion
	}
	var turns []turn
	add := func(role string, blocks ...sdk.ContentBlockParamUnion) {
		if n := len(turns); n > 0 && turns[n-1].role == role {
			turns[n-1].blocks = append(turns[n-1].blocks, blocks...)
			return
		}
		turns = append(turns, turn{role: role, blocks: blocks})
	}
	for i, e := range request.Messages {
		switch e.Role {
		case harness.RoleUser:
			add(harness.RoleUser, sdk.NewTextBlock(e.Text))
		case harness.RoleTool:
			add(harness.RoleUser, sdk.NewToolResultBlock(e.CallID, e.Text, e.IsError))
		case harness.RoleAssistant:
			var blocks []sdk.ContentBlockParamUnion
			if e.Text != "" {
				blocks = append(blocks, sdk.NewTextBlock(e.Text))
			}
			for _, b := range e.Blocks {
				switch b.Type {
				case harness.BlockText:
					if b.Text != "" {
						blocks = append(blocks, sdk.NewTextBlock(b.Text))
					}
				case harness.BlockToolCall:
					blocks = append(blocks, sdk.NewToolUseBlock(b.CallID, input(b.Arguments), b.Name))
				}
			}
			if len(blocks) == 0 {
				continue // an empty assistant message (a max-tokens step with no text) says nothing
			}
			add(harness.RoleAssistant, blocks...)
		default:
			return sdk.MessageNewParams{}, fmt.Errorf("anthropic: request: entry %d has unknown role %q", i, e.Role)
		}
	}
	var messages []sdk.MessageParam
	for _, t := range turns {
		if t.role == harness.RoleUser {
			messages = append(messages, sdk.NewUserMessage(t.blocks...))
		} else {
			messages = append(messages, sdk.NewAssistantMessage(t.blocks...))
		}
	}
	params := sdk.MessageNewParams{Model: sdk.Model(p.cfg.Model), MaxTokens: p.cfg.MaxTokens, Messages: messages}
	if p.cfg.System != "" {
		params.System = []sdk.TextBlockParam{{Text: p.cfg.System}}
	}
	for _, name := range request.Tools {
		spec := p.cfg.Tools[name]
		tool := sdk.ToolParam{Name: name, InputSchema: sdk.ToolInputSchemaParam{Properties: spec.Properties, Required: spec.Required}}
		if spec.Description != "" {
			tool.Description = sdk.String(spec.Description)
		}
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: &tool})
	}
	return params, nil
}

// input is a tool call's arguments as the JSON value the API wants back; arguments that are not
// JSON (a model's malformed call) are sent as a string rather than refused.
func input(arguments string) any {
	if arguments == "" {
		return map[string]any{}
	}
	var v any
	if json.Unmarshal([]byte(arguments), &v) != nil {
		return arguments
	}
	return json.RawMessage(arguments)
}
