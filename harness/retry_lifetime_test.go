package harness

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The plugin's lifetime reads as the context it replaced, whenever that context is made: one
// made before disposal ends with it, one made after is done already, and over follows finish.
func TestPluginLifetimeIsItsContextMadeLate(t *testing.T) {
	var before pluginLifetime
	ctx := before.context()
	assert.False(t, before.over())
	assert.NoError(t, ctx.Err())
	assert.Same(t, ctx, before.context(), "made once")
	before.finish()
	assert.True(t, before.over())
	assert.ErrorIs(t, ctx.Err(), context.Canceled)
	assert.Equal(t, errPluginDisposed, context.Cause(ctx))

	var after pluginLifetime
	after.finish()
	after.finish() // a second disposal changes nothing
	assert.True(t, after.over())
	late := after.context()
	assert.ErrorIs(t, late.Err(), context.Canceled)
	assert.Equal(t, errPluginDisposed, context.Cause(late))
}
