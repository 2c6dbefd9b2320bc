package list

import (
	"context"
	"fmt"

	"github.com/tabula-console/tabula/apiclient"
)

// collectionRows are the rows of every page of a collection, as one
// kube.TableRows. Pages are opened by a goroutine of their own, each as
// soon as the head of the one before (which carries its continue token)
// has arrived, up to pagesAhead pages ahead of the one being read: the
// server prepares them while this one is decoded and written. Their bodies
// wait unread, bounded by the connection's flow control.
type collectionRows struct {
	pages  <-chan openedPage
	cancel context.CancelFunc

	cur  *apiclient.TableStream
	read int
	err  error
	// pageEnded, if set, is called when a page has ended and the next one
	// has yet to arrive, before it is waited for.
	pageEnded func()
}

// pagesAhead is how many pages an export opens ahead of the one it reads.
const pagesAhead = 2

type openedPage struct {
	s   *apiclient.TableStream
	err error
}

func newCollectionRows(ctx context.Context, client *apiclient.Client, r apiclient.Resource, opts apiclient.ListOptions) *collectionRows {
	ctx, cancel := context.WithCancel(ctx)
	// One page is opened at a time; the channel holds the opened ones not
	// yet read: the one being opened is the pagesAhead-th.
	pages := make(chan openedPage, pagesAhead-1)
	// Every page opened is sent, and Close takes (and closes) those not
	// read, so the sends end once Close has cancelled the opening.
	go func() {
		defer close(pages)
		opts.Continue = ""
		for {
			s, err := client.OpenTable(ctx, r, opts)
			pages <- openedPage{s, err}
			if err != nil || s.Head.Continue == "" {
				return
			}
			opts.Continue = s.Head.Continue
		}
	}()
	return &collectionRows{pages: pages, cancel: cancel}
}

// Open reads the first page's head.
func (c *collectionRows) Open() (*apiclient.Table, error) {
	p := <-c.pages
	if p.err != nil {
		return nil, p.err
	}
	c.cur = p.s
	return &p.s.Head, nil
}

func (c *collectionRows) Next() bool {
	for c.cur != nil {
		if c.cur.Next() {
			c.read++
			return true
		}
		if err := c.cur.Err(); err != nil {
			c.err = err
			return false
		}
		c.cur.Close()
		c.cur = nil
		if c.read >= maxExportObjects {
			c.err = fmt.Errorf("the collection has more than %d objects, the most one export holds: export a narrower selection", maxExportObjects)
			return false
		}
		var p openedPage
		select {
		case p = <-c.pages:
		default:
			if c.pageEnded != nil {
				c.pageEnded()
			}
			p = <-c.pages
		}
		if p.s == nil && p.err == nil {
			return false // closed: the last page was read
		}
		if p.err != nil {
			c.err = p.err
			return false
		}
		c.cur = p.s
	}
	return false
}

func (c *collectionRows) Row() *apiclient.Row { return c.cur.Row() }
func (c *collectionRows) Err() error          { return c.err }

// Close releases the current page and those opened ahead, and stops the
// opening.
func (c *collectionRows) Close() {
	c.cancel()
	if c.cur != nil {
		c.cur.Close()
		c.cur = nil
	}
	for p := range c.pages {
		if p.s != nil {
			p.s.Close()
		}
	}
}
