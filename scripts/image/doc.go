// Command image builds agent3md's container image without a container
// engine: a scratch image (no shell, no libc, nothing but the static
// binary, /etc/passwd and /etc/group naming the non-root user 65532, its
// home and /tmp) with the binary as its entrypoint, run as 65532:65532,
// written as an OCI image layout in a tar file (an "oci-archive": what
// `skopeo copy --all oci-archive:…` pushes, `podman load` reads).
// One image per binary, each binary's platform read from its ELF header;
// several binaries make a multi-platform index. Nothing is pulled: there
// is no base image. The bytes are reproducible: every time is
// SOURCE_DATE_EPOCH (or 0).
//
//	go run . build -o agent3md.oci.tar -tag 0.3.0 bin/linux-amd64/agent3md bin/linux-arm64/agent3md
//	go run . extract -platform linux/amd64 agent3md.oci.tar | tar -x -C rootfs
//
// extract writes the image's file system, layers applied, as a tar
// stream: CI unpacks it and runs the binary in it with chroot (no engine
// there either). scripts/image.sh drives both (docs/http.md §14).
//
// It is a module of its own, so the main module's dependencies stay those
// of the binary.
package main
