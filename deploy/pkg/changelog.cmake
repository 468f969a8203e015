# deploy/pkg/changelog.cmake - the package's Debian changelog (a native package:
# changelog.gz) at build time, naming the git revision app/git_rev.cmake took for the binary
# (so the changelog and `rtvd --version` in one package always agree):
#   cmake -DHDR=<build>/app/git_rev.h -DOUT=<changelog.gz> -DSRC=<source dir>
#         -DVERSION=<version> -DMAINT=<maintainer> -DGZIP=<gzip> -P deploy/pkg/changelog.cmake
file(STRINGS ${HDR} line REGEX "^#define VD_GIT_REV ")
string(REGEX REPLACE "^#define VD_GIT_REV \"(.*)\"$" "\\1" rev "${line}")
if(NOT rev)
    message(FATAL_ERROR "changelog.cmake: no VD_GIT_REV in ${HDR}")
endif()
execute_process(COMMAND git log -1 --format=%aD WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE date OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT date)
    set(date "Thu, 01 Jan 2026 00:00:00 +0000")
endif()
get_filename_component(dir ${OUT} DIRECTORY)
file(WRITE ${dir}/changelog
     "rtvd (${VERSION}) bookworm; urgency=medium\n\n"
     "  * Build of git revision ${rev}.\n\n"
     " -- ${MAINT}  ${date}\n")
execute_process(COMMAND ${GZIP} -9nc ${dir}/changelog OUTPUT_FILE ${OUT} RESULT_VARIABLE rc)
if(rc)
    message(FATAL_ERROR "changelog.cmake: ${GZIP} failed (${rc})")
endif()
