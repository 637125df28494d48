package opencode

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// SavedApproval is a rule OpenCode 2 saved for a project when a permission
// request was answered "always": requests of Action on Resource (a
// pattern) are allowed without asking from then on, until it is deleted.
type SavedApproval struct {
	ID        string `json:"id"` // "psv_…"
	ProjectID string `json:"projectID"`
	Action    string `json:"action"`
	Resource  string `json:"resource"`
}

// errMemoryRules is the error of the saved-approval calls on opencode 1.x.
var errMemoryRules = fmt.Errorf("opencode 1.x keeps always answers in memory, where no route lists them: %w", ErrNotAccepted)

// savedGeneration checks the server keeps saved approvals: only OpenCode 2
// does. Before any Probe the kind of server is not known yet.
func (c *Client) savedGeneration(op string) error {
	switch c.Generation() {
	case 2:
		return nil
	case 0:
		return fmt.Errorf("%s: the server was not reached yet, so its kind is not known: %w", op, ErrTransient)
	}
	return fmt.Errorf("%s: %w", op, errMemoryRules)
}

// ListSaved returns the approvals OpenCode 2 saved for project projectID,
// or for every project when it is "".
func (c *Client) ListSaved(ctx context.Context, projectID string) ([]SavedApproval, error) {
	const op = "list saved approvals"
	if err := c.savedGeneration(op); err != nil {
		return nil, err
	}
	var q url.Values
	if projectID != "" {
		q = url.Values{"projectID": {projectID}}
	}
	var out data2[[]SavedApproval]
	if err := c.call(ctx, op, http.MethodGet, "/api/permission/saved", q, nil, &out); err != nil {
		return nil, err
	}
	return out.Data, nil
}

// DeleteSaved deletes saved approval id: requests it allowed are asked
// again.
func (c *Client) DeleteSaved(ctx context.Context, id string) error {
	op := "delete saved approval " + id
	if id == "" {
		return fmt.Errorf("delete saved approval: empty ID: %w", ErrNotAccepted)
	}
	if err := c.savedGeneration(op); err != nil {
		return err
	}
	return c.call(ctx, op, http.MethodDelete, "/api/permission/saved/"+url.PathEscape(id), nil, nil, nil)
}
