package task

// FizzBuzz returns the FizzBuzz strings of 1..n.
func FizzBuzz(n int) []string {
	return nil
}
