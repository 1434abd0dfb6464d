package io.twinbox.admin;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.ArrayList;

/**
 * Every text reachable from an object through the fields of Twinbox's and Jetty's classes, the
 * elements of collections and maps, and arrays: Strings, and char and byte arrays read as text.
 * For checking what a long-lived object keeps in memory.
 */
final class ObjectGraph {
  private static final int MAX_OBJECTS = 500_000;

  private ObjectGraph() {}

  static List<String> texts(Object root) {
    List<String> texts = new ArrayList<>();
    Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    Deque<Object> todo = new ArrayDeque<>() {
      @Override
      public boolean add(Object o) {
        return o == null || super.add(o); // ArrayDeque refuses nulls; a null field holds nothing
      }

      @Override
      public boolean addAll(Collection<?> c) {
        c.forEach(this::add);
        return true;
      }
    };
    todo.add(root);
    while (!todo.isEmpty() && seen.size() < MAX_OBJECTS) {
      Object o = todo.poll();
      if (!seen.add(o)) {
        continue;
      }
      Class<?> c = o.getClass();
      if (o instanceof String s) {
        texts.add(s);
      } else if (o instanceof char[] chars) {
        texts.add(new String(chars));
      } else if (o instanceof byte[] bytes) {
        texts.add(new String(bytes, StandardCharsets.UTF_8));
      } else if (c.isArray()) {
        if (!c.getComponentType().isPrimitive()) {
          for (int i = 0; i < Array.getLength(o); i++) {
            todo.add(Array.get(o, i));
          }
        }
      } else if (o instanceof Map<?, ?> m) {
        safely(() -> m.forEach((k, v) -> {
          todo.add(k);
          todo.add(v);
        }));
      } else if (o instanceof Collection<?> col) {
        safely(() -> todo.addAll(col));
      } else if (c.getName().startsWith("io.twinbox.") || c.getName().startsWith("org.eclipse.jetty.")) {
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
          for (Field f : k.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive()) {
              continue;
            }
            try {
              f.setAccessible(true);
              todo.add(f.get(o));
            } catch (RuntimeException | IllegalAccessException e) {
              // a field the JVM will not open: not ours to inspect
            }
          }
        }
      }
    }
    return texts;
  }

  private static void safely(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      // a concurrent collection changing under us, or an unmodifiable view that refuses: skip it
    }
  }
}
