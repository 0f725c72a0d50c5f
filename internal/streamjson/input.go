// Package streamjson is the wire format of aidex's bidirectional
// stream-json mode (`aidex --input-format stream-json --output-format
// stream-json`): the messages a program writes to aidex's stdin, one JSON
// object a line, and the JSON Schema files of both directions
// (docs/schema/, generated from these types and agent.Event by
// `go generate ./internal/streamjson`).
package streamjson

//go:generate go run ./gen ../../docs/schema

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// InputType names a message a program sends on stdin.
type InputType string

// The input messages.
const (
	InputUser        InputType = "user"        // a user turn (Claude Code's shape)
	InputApproval    InputType = "approval"    // the answer to an approval event
	InputInteraction InputType = "interaction" // the answer to an interaction event (ask_user)
	InputInterrupt   InputType = "interrupt"   // stop the running turn
)

// ErrBadInput wraps every problem with an input line; the message names
// the cause and the expected shape.
var ErrBadInput = errors.New("bad stream-json input")

// UserInput is a user turn: {"type":"user","message":{"role":"user",
// "content":"text" | [blocks]}}. Several user turns run one after the
// other in one process and one session.
type UserInput struct {
	Type    InputType   `json:"type" jsonschema:"always user"`
	Message UserMessage `json:"message" jsonschema:"the user message"`
}

// UserMessage is the message of a user turn: Role "user" and its content.
type UserMessage struct {
	Role    string  `json:"role" jsonschema:"always user"`
	Content Content `json:"content" jsonschema:"a string, or a list of text and image blocks"`
}

// Content is a user message's content: a JSON string, or a list of
// blocks (Claude's content blocks: text, and images as base64 or URL).
type Content []ContentBlock

// ContentBlock is one block of a user message: Type "text" with Text, or
// Type "image" with Source.
type ContentBlock struct {
	Type   string       `json:"type" jsonschema:"text or image"`
	Text   string       `json:"text,omitempty" jsonschema:"the text of a text block"`
	Source *ImageSource `json:"source,omitempty" jsonschema:"the image of an image block"`
}

// ImageSource is an image: Type "base64" with MediaType (image/png,
// image/jpeg, image/gif, image/webp) and Data (base64), or Type "url"
// with URL.
type ImageSource struct {
	Type      string `json:"type" jsonschema:"base64 or url"`
	MediaType string `json:"media_type,omitempty" jsonschema:"the MIME type of base64 data, e.g. image/png"`
	Data      string `json:"data,omitempty" jsonschema:"the image bytes, base64"`
	URL       string `json:"url,omitempty" jsonschema:"the image URL"`
}

// UnmarshalJSON reads a string (one text block) or a list of blocks.
func (c *Content) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*c = Content{{Type: "text", Text: s}}
		return nil
	}
	var blocks []ContentBlock
	if err := json.Unmarshal(data, &blocks); err != nil {
		return fmt.Errorf("content is a string or a list of {\"type\":\"text\",\"text\":...} / {\"type\":\"image\",\"source\":...} blocks: %w", err)
	}
	*c = blocks
	return nil
}

// ApprovalInput answers the approval event with the same ID: Decision
// once, session, always or deny; Reason goes to the model with a denial.
type ApprovalInput struct {
	Type     InputType    `json:"type" jsonschema:"always approval"`
	ID       string       `json:"id" jsonschema:"the id of the approval event it answers"`
	Decision agent.Answer `json:"decision" jsonschema:"once, session, always or deny"`
	Reason   string       `json:"reason,omitempty" jsonschema:"why it was denied (sent to the model)"`
}

// InteractionInput answers the interaction event (ask_user) with the same
// ID: Answers maps each question's text to its answer (a label, a list of
// labels, a text, yes/no, a list of paths), or Declined.
type InteractionInput struct {
	Type     InputType              `json:"type" jsonschema:"always interaction"`
	ID       string                 `json:"id" jsonschema:"the id of the interaction event it answers"`
	Answers  map[string]agent.Reply `json:"answers,omitempty" jsonschema:"each question's text mapped to its answer: a string or a list of strings"`
	Declined bool                   `json:"declined,omitempty" jsonschema:"the user declined to answer"`
	Reason   string                 `json:"reason,omitempty" jsonschema:"why it was declined"`
}

// InterruptInput stops the running turn (as Ctrl+C does); the process
// goes on with the next user turn.
type InterruptInput struct {
	Type InputType `json:"type" jsonschema:"always interrupt"`
}

// Input is one parsed input line: Type says which field is set.
type Input struct {
	Type        InputType
	User        *UserInput
	Approval    *ApprovalInput
	Interaction *InteractionInput
}

// Parse reads one input line. Errors (wrapping ErrBadInput): not a JSON
// object, an unknown type, a missing id, an unknown decision, an empty
// user message.
func Parse(line []byte) (Input, error) {
	var head struct {
		Type InputType `json:"type"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return Input{}, fmt.Errorf("%w: not a JSON object (%v); send one object a line, e.g. {\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hello\"}}", ErrBadInput, err)
	}
	in := Input{Type: head.Type}
	var err error
	switch head.Type {
	case InputUser:
		in.User = new(UserInput)
		err = decode(line, in.User)
		if err == nil && len(in.User.Message.Content) == 0 {
			err = fmt.Errorf("%w: the user message has no content; set message.content to a string or a list of blocks", ErrBadInput)
		}
	case InputApproval:
		in.Approval = new(ApprovalInput)
		err = decode(line, in.Approval)
		if err == nil {
			err = checkApproval(in.Approval)
		}
	case InputInteraction:
		in.Interaction = new(InteractionInput)
		err = decode(line, in.Interaction)
		if err == nil && in.Interaction.ID == "" {
			err = fmt.Errorf("%w: an interaction answer needs the id of the interaction event", ErrBadInput)
		}
	case InputInterrupt:
	default:
		err = fmt.Errorf("%w: unknown type %q; use user, approval, interaction or interrupt", ErrBadInput, head.Type)
	}
	return in, err
}

func decode(line []byte, v any) error {
	if err := json.Unmarshal(line, v); err != nil {
		return fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	return nil
}

func checkApproval(a *ApprovalInput) error {
	if a.ID == "" {
		return fmt.Errorf("%w: an approval answer needs the id of the approval event", ErrBadInput)
	}
	switch a.Decision {
	case agent.AnswerOnce, agent.AnswerSession, agent.AnswerAlways, agent.AnswerDeny:
		return nil
	}
	return fmt.Errorf("%w: decision %q; use once, session, always or deny", ErrBadInput, a.Decision)
}

// Answer is the interaction answer an InteractionInput gives.
func (i *InteractionInput) Answer() agent.InteractionAnswer {
	return agent.InteractionAnswer{ID: i.ID, Answers: i.Answers, Declined: i.Declined, Reason: i.Reason}
}

// Parts turns a user message into the prompt's parts. Errors (wrapping
// ErrBadInput): an unknown block type, an image without data or URL, bad
// base64.
func (u *UserInput) Parts() ([]llm.Part, error) {
	var parts []llm.Part
	for i, b := range u.Message.Content {
		switch b.Type {
		case "text":
			if strings.TrimSpace(b.Text) != "" {
				parts = append(parts, llm.Part{Type: llm.PartText, Text: b.Text})
			}
		case "image":
			p, err := imagePart(b.Source)
			if err != nil {
				return nil, fmt.Errorf("%w: content block %d: %v", ErrBadInput, i, err)
			}
			parts = append(parts, p)
		default:
			return nil, fmt.Errorf("%w: content block %d has type %q; use text or image", ErrBadInput, i, b.Type)
		}
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("%w: the user message has no text or image", ErrBadInput)
	}
	return parts, nil
}

func imagePart(s *ImageSource) (llm.Part, error) {
	switch {
	case s == nil:
		return llm.Part{}, errors.New("an image block needs a source")
	case s.Type == "url" && s.URL != "":
		return llm.Part{Type: llm.PartImage, URL: s.URL}, nil
	case s.Type == "base64" && s.MediaType != "":
		data, err := base64.StdEncoding.DecodeString(s.Data)
		if err != nil || len(data) == 0 {
			return llm.Part{}, fmt.Errorf("image data is not base64 (%v)", err)
		}
		return llm.Part{Type: llm.PartImage, MIMEType: s.MediaType, Data: data}, nil
	}
	return llm.Part{}, errors.New(`an image source is {"type":"base64","media_type":"image/png","data":"..."} or {"type":"url","url":"..."}`)
}
