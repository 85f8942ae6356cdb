package filestore

import "io"

// syncThenWrite is the planted bug sync-before-write (internal/plant): it syncs first and writes
// after, so the line an append returns for is written but not yet durable, and a power loss
// before the next append's sync takes an acknowledged event with it. Only a plantedbugs build
// ever calls it.
func (s *Store) syncThenWrite(line []byte) error {
	if err := s.sync(); err != nil {
		return err
	}
	n, err := s.write(line)
	if err == nil && n != len(line) {
		err = io.ErrShortWrite
	}
	return err
}
