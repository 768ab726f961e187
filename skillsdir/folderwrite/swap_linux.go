package folderwrite

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// swapIn puts the folder tmpName in the place of name in one exchange
// (renameat2 RENAME_EXCHANGE), so readers of name see the old folder or
// the new, and returns where the old one now is: tmpName. File systems
// without the exchange get two renames (swapInSteps).
func swapIn(root *dirFD, tmpName, name string) (string, error) {
	err := unix.Renameat2(root.fd, tmpName, root.fd, name, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return swapInSteps(root, tmpName, name)
	}
	if err != nil {
		return "", &os.LinkError{Op: "exchange", Old: root.join(tmpName), New: root.join(name), Err: err}
	}
	return tmpName, nil
}

// renameNew moves tmpName to name, which must not exist.
func renameNew(root *dirFD, tmpName, name string) error {
	err := unix.Renameat2(root.fd, tmpName, root.fd, name, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return renameNewSteps(root, tmpName, name)
	}
	if errors.Is(err, unix.EEXIST) {
		return errAppeared(root, name)
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: root.join(tmpName), New: root.join(name), Err: err}
	}
	return nil
}
