package pending

// Place is where a front-end shows something (a request's message, a
// notice), in the front-end's own encoding: the store keeps and compares
// it without reading it. A request keeps one per front-end, by the
// front-end's name (Entry.Places); "" there means not shown yet.
type Place string
