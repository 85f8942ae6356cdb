package openai

import (
	"fmt"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/turnsim/turnsim/harness"
)

// params translates the harness's conversation into a Chat Completions request: user text, the
// assistant's text and tool calls, and each tool result as a tool message naming its call.
func (p *Provider) params(request harness.Request) (sdk.ChatCompletionNewParams, error) {
	var messages []sdk.ChatCompletionMessageParamUnion
	if p.cfg.System != "" {
		messages = append(messages, sdk.SystemMessage(p.cfg.System))
	}
	for i, e := range request.Messages {
		switch e.Role {
		case harness.RoleUser:
			messages = append(messages, sdk.UserMessage(e.Text))
		case harness.RoleTool:
			messages = append(messages, sdk.ToolMessage(e.Text, e.CallID))
		case harness.RoleAssistant:
			messages = append(messages, assistantMessage(e))
		default:
			return sdk.ChatCompletionNewParams{}, fmt.Errorf("openai: request: entry %d has unknown role %q", i, e.Role)
		}
	}
	params := sdk.ChatCompletionNewParams{Model: sdk.ChatModel(p.cfg.Model), Messages: messages}
	for _, name := range request.Tools {
		spec := p.cfg.Tools[name]
		parameters := spec.Parameters
		if parameters == nil {
			parameters = map[string]any{"type": "object"}
		}
		def := shared.FunctionDefinitionParam{Name: name, Parameters: shared.FunctionParameters(parameters)}
		if spec.Description != "" {
			def.Description = sdk.String(spec.Description)
		}
		params.Tools = append(params.Tools, sdk.ChatCompletionFunctionTool(def))
	}
	if p.cfg.MaxTokens > 0 {
		params.MaxCompletionTokens = sdk.Int(p.cfg.MaxTokens)
	}
	return params, nil
}

// assistantMessage replays an assistant entry: its text joined, its tool calls with their ids.
func assistantMessage(e harness.Entry) sdk.ChatCompletionMessageParamUnion {
	msg := sdk.ChatCompletionAssistantMessageParam{}
	text := e.Text
	for _, b := range e.Blocks {
		switch b.Type {
		case harness.BlockText:
			text += b.Text
		case harness.BlockToolCall:
			arguments := b.Arguments
			if arguments == "" {
				arguments = "{}" // the API wants a JSON object; a call with none took an empty one
			}
			msg.ToolCalls = append(msg.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID:       b.CallID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.Name, Arguments: arguments},
				},
			})
		}
	}
	if text != "" || len(msg.ToolCalls) == 0 {
		msg.Content.OfString = sdk.String(text)
	}
	return sdk.ChatCompletionMessageParamUnion{OfAssistant: &msg}
}
