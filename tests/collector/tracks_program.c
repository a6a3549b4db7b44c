/* The track API: a group and a track made twice (the same handles back),
 * a task on the track, then back on the thread's own (a null track), and
 * a pointer that is no track of the collector's (counted, never read).
 * Exits 0, or 3 if the handles were not as expected. */
#include <ittnotify.h>
#include <stdint.h>

int main(void) {
  __itt_domain* d = __itt_domain_create("tracks");
  __itt_string_handle* group_name = __itt_string_handle_create("gpu queues");
  __itt_string_handle* track_name = __itt_string_handle_create("queue 0");
  __itt_string_handle* task = __itt_string_handle_create("kernel");
  __itt_task_begin(d, __itt_null, __itt_null, task); /* starts the session */
  __itt_task_end(d);
  __itt_track_group* group = __itt_track_group_create(group_name, __itt_track_group_type_normal);
  __itt_track* track = __itt_track_create(group, track_name, __itt_track_type_normal);
  if (group == NULL || track == NULL || track->group != group || group->track != track ||
      __itt_track_group_create(group_name, __itt_track_group_type_normal) != group ||
      __itt_track_create(group, track_name, __itt_track_type_normal) != track) {
    return 3;
  }
  __itt_set_track(track);
  __itt_task_begin(d, __itt_null, __itt_null, task);
  __itt_task_end(d);
  __itt_set_track(NULL);
  static char not_a_track[64];
  __itt_set_track((__itt_track*)(void*)not_a_track);
  return 0;
}
