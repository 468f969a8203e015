# tests/config/joints_twin.sed - the ideal-joint twin of a bushing vehicle (issue 13):
# `sed -f joints_twin.sed hmmwv.yaml` is the body of hmmwv_joints.yaml (after its header, up
# to the line "# ---- below: ..."), and the same for the sedan: regenerate the twins with it
# after a change to a bushing vehicle (ctest <vehicle>_joints_in_sync, joints_in_sync.py,
# checks that the two still differ only in the lines this script changes). Every suspension and steering template gets `connection: joints` (the
# anti-roll bars keep their bushings: see sedan_joints.yaml); the solver becomes the
# constrained linearly implicit Euler method (solver.method lie, solver.constraints index2);
# the model is renamed <name>_joints. Nothing else changes: every number is the bushing file's.
s/^  name: \(sedan\|hmmwv\)$/  name: \1_joints/
s/^  method: lsrt2$/  method: lie                   # the constrained LIE (core\/cstep.h)\
  constraints: index2           # or nullspace (config\/README.md, joints)/
/^    type: \(double_wishbone\|multilink\|mcpherson\)$/a\    connection: joints
/^  type: \(rack_pinion\|pitman_arm\)$/a\  connection: joints
