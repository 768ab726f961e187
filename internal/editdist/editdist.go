package editdist

// Slips is the number of single-byte edits (insert, delete, replace, or
// swap of two neighbouring bytes) that turn a into b: the optimal string
// alignment distance. A swap counts as one slip, as a typist makes it
// ("modle" for model, "--skil" for --skill). It is meant for short words;
// its memory grows with len(b).
func Slips(a, b string) int {
	prev2 := make([]int, len(b)+1) // row i-2
	prev := make([]int, len(b)+1)  // row i-1
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
