package sub

// Do does.
func Do() {}
