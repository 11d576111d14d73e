# airlock-runner image: the runner binary, the shared libraries it links
# and a passwd/group naming the unprivileged user, on an empty base. There
# is no shell and nothing else to execute. The root filesystem is staged by
# integration/tools/build-runner-image.sh (from ldd of the built binary).
FROM scratch
COPY rootfs/ /
USER 65534:65534
ENTRYPOINT ["/airlock-runner"]
CMD ["/job/control.sock"]
