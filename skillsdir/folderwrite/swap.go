package folderwrite

import (
	"errors"
	"fmt"
	"io/fs"
)

// swapInSteps is swapIn in two renames, where the system has no exchange:
// the old folder moves aside to a hidden name, the new one into its place
// (for a moment there is neither), and the old one is at the hidden name.
func swapInSteps(root *dirFD, tmpName, name string) (string, error) {
	aside := tempName(name)
	if err := renameAt(root, name, root, aside); err != nil {
		return "", err
	}
	if err := renameAt(root, tmpName, root, name); err != nil {
		renameAt(root, aside, root, name)
		return "", err
	}
	return aside, nil
}

// renameNewSteps is renameNew where the system cannot refuse to replace:
// checked, then renamed. A folder made in between is replaced only when
// empty (rename refuses a full one), a link only as a link.
func renameNewSteps(root *dirFD, tmpName, name string) error {
	if _, err := root.lstat(name); !errors.Is(err, fs.ErrNotExist) {
		return errAppeared(root, name)
	}
	return renameAt(root, tmpName, root, name)
}

func errAppeared(root *dirFD, name string) error {
	return fmt.Errorf("%s changed while it was written (it appeared); nothing of it was replaced by export", root.join(name))
}
