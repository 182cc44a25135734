package mod

// TestOnly is not API.
func TestOnly() {}
