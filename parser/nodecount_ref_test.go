package parser

// countNodesRef is countNodes as it was before skipProse: the reference
// TestCountNodesMatchesRef holds it to.
func countNodesRef(data []byte, max int64) nodeCount {
	var (
		n     int64 = 2 // the document, and the empty scalar it may hold
		line        = 1
		bol         = 0
		start       = true  // the next non-blank byte may start a token
		word        = false // inside a word (a run of non-blank bytes)
		prop        = false // the current word is a property or an alias
	)
	for i := 0; i < len(data); i++ {
		c := data[i]
		cls := countClass[c]
		if cls == cOther && word {
			// Inside a word, ordinary bytes change nothing (a byte order
			// mark included): skip the run. Most bytes of a document go
			// here.
			for i+1 < len(data) && countClass[data[i+1]] == cOther {
				i++
			}
			continue
		}
		if cls == cOther && !start && c != 0xEF {
			// A word in prose (after a blank, not where a token may
			// start): it counts nothing; skip to its end.
			word, prop = true, false
			for i+1 < len(data) && countClass[data[i+1]] == cOther {
				i++
			}
			continue
		}
		if cls == cBlank && !word {
			// Blanks between tokens (indentation) change nothing.
			continue
		}
		switch {
		case cls == cMultiByte:
			// NEL (C2 85), LS (E2 80 A8) and PS (E2 80 A9) are line breaks
			// to go-yaml; anything else starting so is part of a word.
			cls = cOther
			if c == 0xC2 && i+1 < len(data) && data[i+1] == 0x85 ||
				c == 0xE2 && i+2 < len(data) && data[i+1] == 0x80 && (data[i+2] == 0xA8 || data[i+2] == 0xA9) {
				cls = cBreak
			}
		case c == 0xEF && i+2 < len(data) && data[i+1] == 0xBB && data[i+2] == 0xBF:
			// go-yaml skips a byte order mark at the start of a line: it
			// changes nothing here, wherever it is.
			i += 2
			continue
		case c == '-' && i == bol && i+3 <= len(data) && data[i+1] == '-' && data[i+2] == '-' &&
			(i+3 == len(data) || countClass[data[i+3]] == cBlank || countClass[data[i+3]] == cBreak):
			// A document start marker carrying content ("--- |"): the
			// content is a token.
			i += 2
			start, word, prop = true, false, false
			continue
		case cls == cDash && !(i+1 == len(data) || countClass[data[i+1]] == cBlank || countClass[data[i+1]] == cBreak):
			cls = cOther // "-x" is a word, not a sequence entry
		}
		var add int64
		switch cls {
		case cBlank:
			if word {
				word = false
				start = prop // a node may follow a property or an alias
			}
			continue
		case cBreak:
			line++
			bol = i + 1
			start, word, prop = true, false, false
			continue
		case cOther, cAlias, cQuote:
			if start {
				add = 1 // a scalar or an alias may start here
			}
		case cDash:
			add = 2
		case cKey:
			add = 3
		case cColon:
			add = 3
			if word && !prop {
				// Right after a plain word: the word is the key (or the
				// colon is part of it), so no empty key: a mapping and an
				// empty value at most.
				add = 2
			}
		case cOpen:
			add = 2
		case cClose, cProp:
			add = 1
			if start && cls == cProp {
				add++ // the property starts a word that may be a scalar
			}
		}
		switch cls {
		case cOther, cAlias, cProp:
			if !word {
				word, prop = true, cls != cOther
			}
			start = false
		default: // indicators and quotes: the next byte may start a token
			word, prop, start = false, false, true
		}
		if add == 0 {
			continue
		}
		n += add
		if max > 0 && n > max {
			return nodeCount{count: n, over: true, line: line, off: i, bol: bol}
		}
	}
	return nodeCount{count: n}
}
