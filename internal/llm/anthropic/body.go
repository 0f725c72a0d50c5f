package anthropic

import (
	"github.com/zelvior/aidex/internal/llm"
)

// buildBody is [buildRequest] with the conversation encoded through cache
// (nil: no cache): the body of the request sent. A wire message made of
// one stored message comes from the cache; the few that are not (messages
// merged into one, and the last two user messages, which carry the moving
// cache_control breakpoints) are encoded for each request.
func buildBody(req *llm.Request, cache *llm.WireCache) (*llm.Spliced, error) {
	head := *req
	head.Messages = nil
	wr, err := buildRequest(&head)
	if err != nil {
		return nil, err
	}
	wr.Messages = nil
	msgs := req.Messages
	single, err := cache.Encode(msgs, func(m *llm.Message) ([]byte, error) {
		wm := buildMessages([]llm.Message{*m})
		if len(wm) == 0 {
			return nil, nil
		}
		return llm.MarshalJSON(wm[0])
	})
	if err != nil {
		return nil, err
	}
	groups := groupMessages(msgs, single)
	marked := 0
	items := make([]llm.Wire, len(groups))
	for g := len(groups) - 1; g >= 0; g-- {
		grp := groups[g]
		mark := req.CacheControl && marked < 2 && msgs[grp[0]].Role != llm.RoleAssistant
		if mark {
			marked++
		}
		if len(grp) == 1 && !mark {
			items[g] = single[grp[0]]
			continue
		}
		wm := buildMessages(msgs[grp[0] : grp[len(grp)-1]+1])
		if mark {
			last := &wm[0].Content[len(wm[0].Content)-1]
			last.CacheControl = ephemeral()
		}
		b, err := llm.MarshalJSON(wm[0])
		if err != nil {
			return nil, err
		}
		items[g] = llm.WireBytes(b)
	}
	return &llm.Spliced{Head: wr, Field: "messages", Items: items}, nil
}

// groupMessages returns the indexes of the stored messages each wire
// message is made of, as buildMessages merges them: consecutive messages of
// one wire role, messages without blocks (an empty encoding) left out.
func groupMessages(msgs []llm.Message, single []llm.Wire) [][]int {
	var groups [][]int
	prev := ""
	for i, m := range msgs {
		if single[i].Len() == 0 {
			continue
		}
		role := "user"
		if m.Role == llm.RoleAssistant {
			role = "assistant"
		}
		if role == prev {
			groups[len(groups)-1] = append(groups[len(groups)-1], i)
			continue
		}
		groups, prev = append(groups, []int{i}), role
	}
	return groups
}
