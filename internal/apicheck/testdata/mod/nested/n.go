package nested

// Nested is another module's.
func Nested() {}
