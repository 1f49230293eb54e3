# The rooms of src/ and the arrows between them. A room may include its own
# headers and those of every room its arrows reach, directly or through
# other rooms; nothing else. The table is read twice: by CMakeLists.txt,
# which builds one static library per room linked along these arrows, and
# by check_layers.cmake, which refuses the build when a file in src/
# includes a header of a room its own room cannot reach.
#
# Lowest first. Rooms on one line do not know each other.
#   text, model            plain data and string helpers, no I/O
#   graph                  task graph, stream chains, reachability
#   ccu, aiv, msccl        CCU microcode and AIV kernel expansion; MSCCL programs
#                          (folding, the execution model) mapped onto traces;
#                          stages of their own, called by the pipeline
#   check                  the stages; they return findings, never print
#   io                     readers only; export writes traces back
#   report                 formats findings: text, JSON, HTML, DOT
#   pipeline               load -> expand -> graph -> stages
#   gen, mutate            reference schedules; faults and mutants
#   cli                    main and the subcommands
set(COLLCHECK_ROOMS text model graph ccu aiv msccl check io export report pipeline gen mutate cli)

set(COLLCHECK_ROOM_text "")
set(COLLCHECK_ROOM_model "")
set(COLLCHECK_ROOM_graph model)
set(COLLCHECK_ROOM_ccu graph)
set(COLLCHECK_ROOM_aiv graph)
set(COLLCHECK_ROOM_msccl model text)
set(COLLCHECK_ROOM_check graph)
set(COLLCHECK_ROOM_io model text)
set(COLLCHECK_ROOM_export io)
set(COLLCHECK_ROOM_report check text)
set(COLLCHECK_ROOM_pipeline io ccu aiv msccl check report)
set(COLLCHECK_ROOM_gen model msccl)
set(COLLCHECK_ROOM_mutate pipeline gen)
set(COLLCHECK_ROOM_cli pipeline export mutate gen)

# Sets OUT to every room `room` reaches (itself included).
function(collcheck_room_reach room out)
  set(seen ${room})
  set(todo ${room})
  while(todo)
    list(POP_FRONT todo r)
    foreach(d IN LISTS COLLCHECK_ROOM_${r})
      if(NOT d IN_LIST seen)
        list(APPEND seen ${d})
        list(APPEND todo ${d})
      endif()
    endforeach()
  endwhile()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()
