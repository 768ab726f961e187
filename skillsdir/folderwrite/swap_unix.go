//go:build unix && !linux

package folderwrite

// swapIn puts the folder tmpName in the place of name and returns where the
// old one now is; without an exchange call here, in two renames.
func swapIn(root *dirFD, tmpName, name string) (string, error) {
	return swapInSteps(root, tmpName, name)
}

// renameNew moves tmpName to name, which must not exist.
func renameNew(root *dirFD, tmpName, name string) error {
	return renameNewSteps(root, tmpName, name)
}
