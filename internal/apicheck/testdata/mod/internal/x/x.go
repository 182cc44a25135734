package x

// Internal is not API.
func Internal() {}
